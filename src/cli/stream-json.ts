import type { AgentEvent, AgentResult } from "../agent/agent-events.js";
import type { Usage } from "../llm/model-types.js";

/**
 * `sylk ask --output-format stream-json` and `json`: each agent event as the
 * line scripts read, in snake_case. The names are a published format; a
 * field is added, never renamed.
 */

type Line = Record<string, unknown>;
type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

/** A usage in the snake_case fields every JSON output of the CLI uses. */
export function usageJson(usage: Usage): Line {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
  };
}

/** The `json` result object (also the last line of `stream-json`). */
export function resultJson(result: AgentResult) {
  return {
    session_id: result.sessionId,
    response: result.response,
    stop_reason: result.stopReason,
    stats: {
      turns: result.turns,
      ...usageJson(result.usage),
      tool_calls: result.toolCalls,
      ...(result.subagents ? { subagents: { runs: result.subagents.runs, ...usageJson(result.subagents.usage) } } : {}),
    },
    error: result.error ?? null,
  };
}

const toolResult = (event: EventOf<"tool_result">): Line => ({
  type: "tool_result",
  id: event.id,
  name: event.name,
  output: event.output,
  is_error: event.isError ?? false,
  permission: event.permission,
  ...(event.diff ? { diff: event.diff } : {}),
});

const contextEviction = (event: EventOf<"context_eviction">): Line => ({
  type: "context_eviction",
  turn: event.turn,
  ref_id: event.reference.id,
  ref_type: event.reference.type,
  turn_range: event.reference.turnRange,
  tokens_saved: event.reference.tokensSaved,
  content_ids: event.reference.contentIds.length,
  summary: event.reference.summary,
  marker: event.marker,
});

const handoff = (event: EventOf<"handoff">): Line => ({
  type: "handoff",
  turn: event.turn,
  from_agent: event.fromAgent,
  to_agent: event.toAgent,
  handoff_index: event.handoffIndex,
  reason: event.reason,
  context_tokens_before: event.contextTokensBefore,
  context_tokens_after: event.contextTokensAfter,
  predicted_quality: Number(event.predictedQuality.toFixed(4)),
  ...(event.referenceId ? { ref_id: event.referenceId } : {}),
  duration_ms: Number(event.durationMs.toFixed(3)),
});

const contextWindow = (event: EventOf<"context_window">): Line => ({
  type: "context",
  turn: event.turn,
  used_tokens: event.usedTokens,
  window_tokens: event.windowTokens,
  references: event.references,
  ...(event.predictedQuality !== undefined ? { predicted_quality: Number(event.predictedQuality.toFixed(4)) } : {}),
});

const subagentStart = (event: EventOf<"subagent_start">): Line => ({
  type: "subagent_start",
  agent_id: event.agentId,
  agent_type: event.agentType,
  parent_agent_id: event.parentAgentId,
  parent_tool_use_id: event.parentToolUseId,
  session_id: event.sessionId,
  kind: event.kind,
  task: event.task,
});

const subagentEnd = (event: EventOf<"subagent_end">): Line => ({
  type: "subagent_end",
  agent_id: event.agentId,
  agent_type: event.agentType,
  parent_tool_use_id: event.parentToolUseId,
  stop_reason: event.stopReason,
  turns: event.turns,
  tool_calls: event.toolCalls,
  usage: usageJson(event.usage),
  duration_ms: event.durationMs,
  answer_tokens: event.answerTokens,
  truncated: event.truncated,
});

const pipelineStage = (event: EventOf<"pipeline_stage">): Line => ({
  type: "pipeline_stage",
  pipeline_id: event.pipelineId,
  stage: event.stage,
  ordinal: event.ordinal,
  round: event.round,
  agent_id: event.agentId,
  agent_type: event.agentType,
  status: event.status,
  ...(event.outcome ? { outcome: event.outcome } : {}),
  ...(event.usage ? { usage: usageJson(event.usage) } : {}),
  state_entry_id: event.stateEntryId ?? null,
});

const hook = (event: EventOf<"hook">): Line => ({
  type: "hook",
  hook_event_name: event.hookEvent,
  command: event.command,
  ...(event.toolName ? { tool_name: event.toolName } : {}),
  outcome: event.outcome,
  exit_code: event.exitCode,
  duration_ms: Math.round(event.durationMs),
  ...(event.message ? { message: event.message } : {}),
  ...(event.permissionDecision ? { permission_decision: event.permissionDecision } : {}),
  ...(event.note ? { note: event.note } : {}),
});

/** One line per event type; a sub-agent's own events are unwrapped by the printer, so they have none here. */
const LINES: { [T in AgentEvent["type"]]: (event: EventOf<T>) => Line | undefined } = {
  session_start: (event) => ({
    type: "init",
    session_id: event.sessionId,
    resumed: event.resumed,
    provider: event.provider,
    model: event.model,
  }),
  turn_start: (event) => ({ type: "turn", turn: event.turn }),
  attached: (event) => ({
    type: "attached",
    files: event.files.map((file) => ({ path: file.path, start_line: file.startLine, end_line: file.endLine, truncated: file.truncated })),
  }),
  text_delta: (event) => ({ type: "message", delta: event.text }),
  retry: (event) => ({ type: "retry", attempt: event.attempt, delay_ms: event.delayMs, reason: event.reason }),
  assistant_message: (event) => ({ type: "assistant", turn: event.turn, text: event.text, tool_calls: event.toolCalls }),
  tool_use: (event) => ({ type: "tool_use", id: event.id, name: event.name, input: event.input }),
  tool_output: (event) => ({ type: "tool_output", id: event.id, text: event.text }),
  tool_result: toolResult,
  usage: (event) => ({ type: "usage", turn: event.turn, ...usageJson(event.usage) }),
  error: (event) => ({ type: "error", kind: event.kind, message: event.message, fatal: event.fatal }),
  context_eviction: contextEviction,
  prefetch: (event) => ({
    type: "prefetch",
    turn: event.turn,
    excerpts: event.excerpts,
    hints: event.hints,
    tokens: event.tokens,
    tier: event.tier,
  }),
  handoff,
  context_window: contextWindow,
  subagent_start: subagentStart,
  subagent_end: subagentEnd,
  pipeline_stage: pipelineStage,
  hook,
  mcp_server: (event) => ({
    type: "mcp_server",
    server: event.server,
    state: event.state,
    tools: event.tools,
    ...(event.error ? { error: event.error } : {}),
  }),
  subagent_event: () => undefined,
  done: (event) => ({ type: "result", ...resultJson(event.result) }),
};

/** The event's stream-json line (undefined for a sub-agent's wrapped event, which the printer unwraps). */
export function toStreamJson(event: AgentEvent): Line | undefined {
  return (LINES[event.type] as (event: AgentEvent) => Line | undefined)(event);
}
