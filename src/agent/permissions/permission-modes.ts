/**
 * How much the agent may do without asking (the modes users of Claude Code
 * know): `default` asks before writes and commands, `accept-edits` allows
 * file edits and asks before commands, `plan` is read-only, `bypass` allows
 * everything (except what no mode allows). Apart from the policy, so that
 * the CLI can offer them without loading it.
 */
export const PERMISSION_MODES = ["default", "accept-edits", "plan", "bypass"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
