import * as z from "zod/mini";

/**
 * The events a hook may be configured for: Claude Code's names, and Sylk's
 * own `PreEvict` (its counterpart of compaction: content leaves the window
 * behind a reference) and `Handoff` (a fresh instance takes over).
 */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreEvict",
  "Handoff",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run before it is ended, with every process it started. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
const MAX_HOOK_TIMEOUT_SECONDS = 600;

/** Whether a matcher compiles: a broken one is an error in the file, not a hook that silently never runs. */
function isRegularExpression(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/** One hook: a command run outside the sandbox, with the event's input as JSON on its stdin. */
const hookCommandSchema = z.strictObject({
  type: z.literal("command", { error: 'must be "command" (the only kind of hook Sylk runs)' }),
  command: z.string().check(z.minLength(1)),
  timeout: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_HOOK_TIMEOUT_SECONDS))),
});

/** Claude Code's shape: a matcher (a regular expression over the tool's name) and the hooks it runs. */
const hookMatcherSchema = z.strictObject({
  matcher: z.optional(z.string().check(z.refine(isRegularExpression, "must be a regular expression"))),
  hooks: z.array(hookCommandSchema),
});

/** `{ "PreToolUse": [ { "matcher": "run_command", "hooks": [ { "type": "command", "command": "…" } ] } ], … }`. */
export const hooksSchema = z.partialRecord(z.enum(HOOK_EVENTS), z.array(hookMatcherSchema));
export type HooksConfig = z.infer<typeof hooksSchema>;
