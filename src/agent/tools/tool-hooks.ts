/** What a hook needs of the call's context: the run's signal, which interrupts it. */
type HookContext = { signal: AbortSignal };

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
  beforeTool(call: HookedCall, context: HookContext): Promise<BeforeToolAnswer>;
  afterTool(call: HookedCall, result: { output: string; isError: boolean }, context: HookContext): Promise<AfterToolAnswer>;
}

/** A tool's output with what the hooks add for the model after it. */
export function withHookContext(output: string, contexts: ReadonlyArray<string | undefined>): string {
  const context = contexts.filter((text): text is string => text !== undefined && text !== "").join("\n\n");
  return context ? `${output}\n\n<hook-context>\n${context}\n</hook-context>` : output;
}
