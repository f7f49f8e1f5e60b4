import type { HookRunReport } from "../hooks/session-hooks.js";
import type { ModelErrorKind } from "../llm/model-errors.js";
import type { Usage } from "../llm/model-types.js";
import type { ContextReference } from "../store/content-types.js";
import type { ToolRunResult } from "./tools/tool-registry.js";
import type { WindowMisfitKind } from "./window-fit.js";

/** `blocked`: a `UserPromptSubmit` hook stopped the prompt before it was sent or recorded. */
export type AgentStopReason = "end_turn" | "max_tokens" | "max_turns" | "error" | "interrupted" | "blocked";

export interface AgentResult {
  sessionId: string;
  /** The final answer's text. */
  response: string;
  stopReason: AgentStopReason;
  /** Model calls made in this run. */
  turns: number;
  toolCalls: number;
  usage: Usage;
  error?: { kind: ModelErrorKind | WindowMisfitKind | "tool" | "hook" | "unknown"; message: string };
  /** What the run's sub-agents used, summed (absent when it started none). */
  subagents?: { runs: number; usage: Usage };
}

/**
 * Everything a run does, as it happens: one stream shared by `sylk ask`'s
 * printers and the TUI's hook (a discriminated union, as gemini-cli's turn
 * events). `done` is always last.
 */
export type AgentEvent =
  | { type: "session_start"; sessionId: string; resumed: boolean; provider: string; model: string }
  | { type: "turn_start"; turn: number }
  /** Files or definitions the prompt @-mentioned, attached to it before the model saw it. */
  | { type: "attached"; files: Array<{ mention: string; path: string; startLine: number; endLine: number; truncated: boolean }> }
  | { type: "text_delta"; text: string }
  /** A model call failed part-way and is being retried: discard its partial text. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "assistant_message"; turn: number; text: string; toolCalls: number }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  /** Output of a running tool call as it is produced (a command's stdout and stderr), appended in order. */
  | { type: "tool_output"; id: string; text: string }
  | ({ type: "tool_result"; id: string; name: string } & ToolRunResult)
  | { type: "usage"; turn: number; usage: Usage; total: Usage }
  /** Content left the window; its marker now stands where it was (nothing is lost: `retrieve_context`). */
  | { type: "context_eviction"; turn: number; reference: ContextReference; marker: string }
  /** Relevant code or history put in front of the model before it asked (Tier A excerpts, Tier B hints). */
  | {
      type: "prefetch";
      turn: number;
      excerpts: Array<{ source: string; confidence: number }>;
      hints: Array<{ source: string; confidence: number }>;
      tokens: number;
      tier: string;
    }
  /**
   * The agent instance's quality was about to degrade (or `/handoff` asked):
   * a fresh instance of the same type and model took over with the prepared
   * context, and the old one ended. No model call was made for it.
   */
  | {
      type: "handoff";
      turn: number;
      fromAgent: string;
      toAgent: string;
      handoffIndex: number;
      reason: string;
      contextTokensBefore: number;
      contextTokensAfter: number;
      predictedQuality: number;
      referenceId?: string;
      durationMs: number;
    }
  /** The window as sent for this turn. */
  /** `usedTokens`: what the request holds (system prompt, tools, messages), not the room kept for the answer. */
  | { type: "context_window"; turn: number; usedTokens: number; windowTokens: number; references: number; predictedQuality?: number }
  | { type: "error"; kind: string; message: string; fatal: boolean }
  /** A tool call (`delegate`, `consult_*`) started a sub-agent in a session of its own. */
  | {
      type: "subagent_start";
      agentId: string;
      agentType: string;
      parentAgentId: string;
      parentToolUseId: string;
      sessionId: string;
      kind: string;
      task: string;
    }
  /** Something a sub-agent did, as it happened (its own events, nested: a sub-agent's sub-agent is wrapped twice). */
  | { type: "subagent_event"; agentId: string; agentType: string; parentToolUseId: string; event: AgentEvent }
  | {
      type: "subagent_end";
      agentId: string;
      agentType: string;
      parentToolUseId: string;
      stopReason: AgentStopReason;
      turns: number;
      toolCalls: number;
      usage: Usage;
      durationMs: number;
      /** The answer's tokens as the parent received it, and whether it was clipped to the call's budget. */
      answerTokens: number;
      truncated: boolean;
    }
  /** A pipeline stage started or ended (`sylk ask --pipeline`, `/pipeline`); its agent's own events come as `subagent_event`s. */
  | {
      type: "pipeline_stage";
      pipelineId: string;
      stage: string;
      ordinal: number;
      round: number;
      agentId: string;
      agentType: string;
      status: "start" | "end";
      /** How it ended: done, no_structure, error or interrupted. */
      outcome?: string;
      /** What the stage's model calls used (at its end). */
      usage?: Usage;
      stateEntryId?: string;
    }
  /** A hook the user configured ran (`hooks` in .sylkrc): what it said, and whether it blocked. */
  | ({ type: "hook" } & HookRunReport)
  /**
   * An MCP server connected, changed its tools, or failed (could not start,
   * did not answer in time, or stopped): the session goes on without it.
   */
  | { type: "mcp_server"; server: string; state: "connected" | "failed"; tools: number; error?: string }
  | { type: "done"; result: AgentResult };

/** One line that says a handoff happened, for `sylk ask`'s stderr and the TUI's transcript. */
export function handoffNote(event: Extract<AgentEvent, { type: "handoff" }>): string {
  const why =
    event.reason === "forced" ? "as asked" : `predicted quality ${event.predictedQuality.toFixed(2)}, ${event.reason.replace(/_/g, " ")}`;
  return (
    `Handoff ${event.handoffIndex}: ${event.fromAgent} → ${event.toAgent} (${why}); ` +
    `context ${event.contextTokensBefore.toLocaleString("en-US")} → ${event.contextTokensAfter.toLocaleString("en-US")} tokens, nothing lost`
  );
}

/** What a hook's block did, by event. */
const BLOCKED: Readonly<Record<string, string>> = {
  PreToolUse: "blocked the call",
  PostToolUse: "objected to the call",
  UserPromptSubmit: "blocked the prompt, which was not sent",
  Stop: "kept the agent working",
  SubagentStop: "kept the sub-agent working",
};

/** One line for a hook that blocked, failed or has a message for the user: `sylk ask`'s stderr and the TUI's transcript. */
export function hookNote(event: Extract<AgentEvent, { type: "hook" }>): string {
  const what = `${event.hookEvent} hook${event.toolName ? ` (${event.toolName})` : ""} \`${event.command}\``;
  const said = event.message ? `: ${event.message}` : "";
  const note = event.note ? ` (${event.note})` : "";
  if (event.outcome === "blocked") return `${what} ${BLOCKED[event.hookEvent] ?? "blocked"}${said}${note}`;
  if (event.outcome === "error") return `${what} failed${said}; nothing was stopped${note}`;
  return `${what}${note}`;
}

/** Whether a hook's run is worth a line of its own: it blocked, failed, or said something to the user. A quiet success shows nothing. */
export function hookIsShown(event: Extract<AgentEvent, { type: "hook" }>): boolean {
  return event.outcome !== "ok" || event.note !== undefined;
}

/** One line that says an MCP server failed, for `sylk ask`'s stderr and the TUI's transcript. */
export function mcpFailureNote(event: Extract<AgentEvent, { type: "mcp_server" }>): string {
  return `MCP server "${event.server}" ${event.error ?? "failed"}. The session goes on without its tools (/mcp shows the servers).`;
}
