import type { PermissionDecision } from "../permissions/permission-policy.js";
import type { ToolContext } from "./tool.js";

/** What the user's hooks said before a call ran (`PreToolUse`). */
export interface BeforeToolAnswer {
  /** The call must not run: why, for the model. */
  blocked?: string;
  /** `ask`: the user decides even where the policy would allow; `allow`: answers the mode's question as an allow rule would. */
  permissionDecision?: "allow" | "ask";
  reason?: string;
  /** Context for the model, after the call's result. */
  additionalContext?: string;
}

/** What the user's hooks said after a call ran (`PostToolUse`). */
export interface AfterToolAnswer {
  /** A hook objected to what was done (it cannot be undone): its reason, for the model. */
  feedback?: string;
  additionalContext?: string;
}

export interface HookedCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * The hooks around each call the registry runs (`PreToolUse`,
 * `PostToolUse`): the registry asks them, the session decides which hooks
 * those are.
 */
export interface ToolHooks {
  beforeTool(call: HookedCall, context: ToolContext): Promise<BeforeToolAnswer>;
  afterTool(call: HookedCall, result: { output: string; isError: boolean }, context: ToolContext): Promise<AfterToolAnswer>;
}

/**
 * The policy's decision with the PreToolUse hooks' answer. `ask` turns an
 * allow into a question for this one call. `allow` (only a hook the user
 * wrote gives one) answers the mode's question as an allow rule would, and
 * nothing more: never a refusal (the blocklist, a deny rule, plan mode),
 * nor a question only the user may answer for that one call (a protected
 * path, a run outside the sandbox).
 */
export function withHookDecision(decision: PermissionDecision, hooks: BeforeToolAnswer | undefined): PermissionDecision {
  if (!hooks?.permissionDecision || decision.behavior === "deny") return decision;
  const why = hooks.reason ? `: ${hooks.reason}` : "";
  if (hooks.permissionDecision === "ask") {
    return decision.behavior === "ask"
      ? { ...decision, reason: `${decision.reason} (a PreToolUse hook asks too${why})`, once: true }
      : { behavior: "ask", once: true, reason: `a PreToolUse hook asks${why}` };
  }
  return decision.behavior === "ask" && !decision.once ? { behavior: "allow" } : decision;
}

/** A tool's output with what the hooks add for the model after it. */
export function withHookContext(output: string, contexts: ReadonlyArray<string | undefined>): string {
  const context = contexts.filter((text): text is string => text !== undefined && text !== "").join("\n\n");
  return context ? `${output}\n\n<hook-context>\n${context}\n</hook-context>` : output;
}
