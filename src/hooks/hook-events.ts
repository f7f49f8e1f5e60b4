import type { HookEventName } from "../config/hooks-schema.js";

export { HOOK_EVENTS, type HookEventName } from "../config/hooks-schema.js";

/** What a hook's exit 2 (or its `block` / `deny` answer) stops: the call, the prompt, or the end of the answer. */
const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"]);

export function canBlock(event: HookEventName): boolean {
  return BLOCKING_EVENTS.has(event);
}

/** Events whose plain stdout (exit 0, not JSON) is context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "SessionStart"]);

export function stdoutIsContext(event: HookEventName): boolean {
  return STDOUT_IS_CONTEXT.has(event);
}

/**
 * The field of the input a matcher is tested against: the tool's name for
 * tool events, the session's `source` or `reason`, the eviction's
 * `trigger`. Other events have nothing to match: every hook of theirs runs.
 */
export function matcherSubject(event: HookEventName): "tool_name" | "source" | "reason" | "trigger" | undefined {
  switch (event) {
    case "PreToolUse":
    case "PostToolUse":
      return "tool_name";
    case "SessionStart":
      return "source";
    case "SessionEnd":
      return "reason";
    case "PreEvict":
      return "trigger";
    default:
      return undefined;
  }
}
