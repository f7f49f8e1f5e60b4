import type { PermissionMode } from "../../agent/permissions/permission-policy.js";

/** What each mode lets run without asking, as the hint after Shift+Tab says it. */
export const PERMISSION_MODE_HINTS: Readonly<Record<PermissionMode, string>> = {
  default: "writes and commands are asked about",
  "accept-edits": "file edits without asking, commands are asked about",
  plan: "read-only: Sylk describes changes instead of making them",
  bypass: "everything runs without asking (commands stay sandboxed)",
};

/**
 * Shift+Tab's order: default → accept-edits → plan → default. Bypass is in
 * the cycle only for a session that started in it: a key must not be what
 * turns every question off.
 */
export function nextPermissionMode(mode: PermissionMode, bypassAllowed: boolean): PermissionMode {
  const cycle: PermissionMode[] = bypassAllowed ? ["default", "accept-edits", "plan", "bypass"] : ["default", "accept-edits", "plan"];
  const index = cycle.indexOf(mode);
  return cycle[(index + 1) % cycle.length] as PermissionMode;
}
