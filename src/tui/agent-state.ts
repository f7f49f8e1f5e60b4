import { handoffNote, mcpFailureNote, type AgentEvent, type AgentResult } from "../agent/agent-events.js";
import { addUsage, EMPTY_USAGE, type Usage } from "../llm/model-types.js";
import type { ContextReference } from "../store/content-types.js";
import { maskSecrets } from "../security/secrets.js";
import { hookLines } from "./format/hook-lines.js";
import { firstLine } from "./format/text.js";
import { completedBlocksLength } from "./markdown/completed-blocks.js";
import { keepTail, linesAfter, subAgentStep, type TaskView, tasksOf, withSubAgent } from "./tool-call-views.js";
import type { ToolCallView, TranscriptEntry, TranscriptItem } from "./transcript.js";

/**
 * What the screen shows of the conversation. `history` is final and printed
 * once; `streaming` and `tools` are the live part of the running turn.
 */
export interface AgentViewState {
  history: TranscriptItem[];
  /** Text of the model call in progress not yet printed (its finished blocks go to the history as they complete). */
  streaming: string;
  /** Blocks of the model call in progress were printed already. */
  streamedOut: boolean;
  /** Tool calls that have not returned yet. */
  tools: ToolCallView[];
  running: boolean;
  /** Tokens in the model's window at the latest call: input + cache read + cache write. */
  contextTokens: number | undefined;
  /** The window the engine works with, once a run reported it (it may be configured below the model's). */
  windowTokens: number | undefined;
  /** Context reference markers in the window at the latest call. */
  references: number;
  /** Tokens the model calls of this screen's session used (for the cost estimate). */
  usage: Usage;
  sessionId: string;
  /** Bumped by a clear, so the printed history starts again. */
  epoch: number;
  /** The transcript view (Ctrl+O): tool calls drawn with their whole output. */
  expanded: boolean;
  nextId: number;
  /** The quality the agent's learned curve predicts for its next turn (status line). */
  predictedQuality: number | undefined;
  /** The agent instance at work, once a handoff made it other than the first. */
  agentId: string | undefined;
  /** The model's task list (`todo_write`), for the task panel. */
  tasks: TaskView[];
  /** Tokens this screen's sub-agents used (their own sessions; `/cost` lists them by agent type). */
  subagentUsage: Usage;
}

export type AgentAction =
  | { type: "event"; event: AgentEvent }
  | { type: "started"; prompt: string }
  | { type: "append"; entries: TranscriptEntry[] }
  | { type: "crashed"; message: string }
  | { type: "session"; sessionId: string; tasks: TaskView[] }
  | { type: "clear"; entries: TranscriptEntry[] }
  /** Ctrl+O: the history is printed again, expanded or compact. */
  | { type: "toggle-expanded" }
  /** The history is printed again as it is (on a cleared screen of another width). */
  | { type: "reprint" };

export const INITIAL_AGENT_STATE: AgentViewState = {
  history: [],
  streaming: "",
  streamedOut: false,
  tools: [],
  running: false,
  contextTokens: undefined,
  windowTokens: undefined,
  references: 0,
  usage: EMPTY_USAGE,
  sessionId: "",
  epoch: 0,
  expanded: false,
  nextId: 0,
  predictedQuality: undefined,
  agentId: undefined,
  tasks: [],
  subagentUsage: EMPTY_USAGE,
};

function append(state: AgentViewState, ...entries: TranscriptEntry[]): AgentViewState {
  if (entries.length === 0) return state;
  const items = entries.map((entry, index) => ({ ...entry, id: state.nextId + index }) as TranscriptItem);
  return { ...state, history: [...state.history, ...items], nextId: state.nextId + entries.length };
}

export function agentReducer(state: AgentViewState, action: AgentAction): AgentViewState {
  switch (action.type) {
    case "started":
      return {
        ...append(state, { kind: "user", text: action.prompt }, ...maskedNote(action.prompt)),
        running: true,
        streaming: "",
        streamedOut: false,
        tools: [],
      };
    case "append":
      return append(state, ...action.entries);
    case "crashed":
      return {
        ...append(state, ...flushLive(state), { kind: "note", tone: "error", text: action.message }),
        running: false,
        streaming: "",
        streamedOut: false,
        tools: [],
      };
    case "session":
      return {
        ...state,
        sessionId: action.sessionId,
        contextTokens: undefined,
        references: 0,
        usage: EMPTY_USAGE,
        predictedQuality: undefined,
        agentId: undefined,
        tasks: action.tasks,
        subagentUsage: EMPTY_USAGE,
      };
    case "clear":
      return append({ ...INITIAL_AGENT_STATE, epoch: state.epoch + 1, nextId: state.nextId }, ...action.entries);
    case "toggle-expanded":
      return { ...state, expanded: !state.expanded, epoch: state.epoch + 1 };
    case "reprint":
      return { ...state, epoch: state.epoch + 1 };
    case "event":
      return applyEvent(state, action.event);
  }
}

function applyEvent(state: AgentViewState, event: AgentEvent): AgentViewState {
  switch (event.type) {
    case "session_start":
      return { ...state, sessionId: event.sessionId };
    case "turn_start":
      return { ...state, streaming: "", streamedOut: false };
    case "attached":
      return append(state, {
        kind: "note",
        tone: "dim",
        text: `Attached ${event.files.map((file) => `${file.path}:${file.startLine}-${file.endLine}${file.truncated ? " (cut)" : ""}`).join(", ")}`,
      });
    case "text_delta":
      return printFinishedBlocks({ ...state, streaming: state.streaming + event.text });
    case "retry": {
      // The attempt's partial text is void: the retry streams the answer again from the start.
      const superseded = state.streamedOut ? "; the partial answer above is superseded" : "";
      return {
        ...append(state, { kind: "note", tone: "dim", text: `retrying… (${event.reason}; attempt ${event.attempt})${superseded}` }),
        streaming: "",
        streamedOut: false,
      };
    }
    case "assistant_message": {
      // What was printed while streaming stays; the rest of the message follows it.
      const rest = state.streamedOut ? state.streaming : event.text;
      const entries = rest.trim() ? [{ kind: "assistant", text: rest.trimEnd(), continued: state.streamedOut } as const] : [];
      return { ...append(state, ...entries), streaming: "", streamedOut: false };
    }
    case "tool_use":
      return {
        ...state,
        tools: [...state.tools, { id: event.id, name: event.name, input: event.input, status: "running", startedAt: Date.now() }],
      };
    case "tool_output":
      return {
        ...state,
        tools: state.tools.map((tool) =>
          tool.id === event.id
            ? { ...tool, tail: keepTail((tool.tail ?? "") + event.text), printedLines: linesAfter(tool, event.text) }
            : tool,
        ),
      };
    case "tool_result":
      return withToolResult(state, event);
    case "usage":
      return {
        ...state,
        contextTokens: event.usage.inputTokens + event.usage.cacheReadTokens + event.usage.cacheWriteTokens,
        usage: addUsage(state.usage, event.usage),
      };
    case "context_window":
      return {
        ...state,
        windowTokens: event.windowTokens,
        references: event.references,
        predictedQuality: event.predictedQuality ?? state.predictedQuality,
      };
    case "handoff":
      return { ...append(state, { kind: "note", tone: "warning", text: handoffNote(event) }), agentId: event.toAgent };
    case "prefetch": {
      const sources = [...event.excerpts, ...event.hints].map((item) => item.source);
      if (sources.length === 0) return state;
      const shown = sources.length > 4 ? `${sources.slice(0, 4).join(", ")} and ${sources.length - 4} more` : sources.join(", ");
      return append(state, { kind: "note", tone: "dim", text: `Context: added ${shown} (${event.tokens} tokens)` });
    }
    case "context_eviction":
      return append(state, { kind: "note", tone: "dim", text: evictionNote(event.reference, event.marker) });
    case "hook":
      return append(state, ...hookLines(event));
    case "error":
      return append(state, { kind: "note", tone: event.fatal ? "error" : "warning", text: event.message });
    case "subagent_start":
      return {
        ...state,
        tools: withSubAgent(state.tools, event.parentToolUseId, () => ({ agentId: event.agentId, agentType: event.agentType, steps: [] })),
      };
    case "subagent_event":
      return {
        ...state,
        tools: withSubAgent(state.tools, event.parentToolUseId, (view) => (view ? subAgentStep(view, event.event) : undefined)),
      };
    case "subagent_end":
      return {
        ...state,
        tools: withSubAgent(state.tools, event.parentToolUseId, (view) =>
          view ? { ...view, tokens: event.usage.inputTokens + event.usage.outputTokens } : undefined,
        ),
        subagentUsage: addUsage(state.subagentUsage, event.usage),
      };
    case "pipeline_stage":
      return withPipelineStage(state, event);
    case "mcp_server":
      // A server that connected is seen in /mcp; one that failed is said, since its tools are gone.
      return event.state === "failed" ? append(state, { kind: "note", tone: "warning", text: mcpFailureNote(event) }) : state;
    case "done":
      return {
        ...append(state, ...flushLive(state), ...closingNotes(event.result)),
        sessionId: event.result.sessionId || state.sessionId,
        running: false,
        streaming: "",
        streamedOut: false,
        tools: [],
      };
    default:
      return unknownEvent(state, event);
  }
}

/** A finished call: printed, no longer running, and a task list written by `todo_write` shown. */
function withToolResult(state: AgentViewState, event: Extract<AgentEvent, { type: "tool_result" }>): AgentViewState {
  const running = state.tools.find((tool) => tool.id === event.id);
  const call: ToolCallView = {
    id: event.id,
    name: event.name,
    input: running?.input,
    status: event.permission === "denied" ? "denied" : event.isError ? "error" : "done",
    result: firstLine(event.display ?? event.output),
    output: event.output,
    ...(event.details !== undefined ? { details: event.details } : {}),
    ...(event.detailsLines !== undefined ? { printedLines: event.detailsLines } : {}),
    ...(event.diff ? { diff: event.diff } : {}),
    ...(running?.subagent ? { subagent: running.subagent } : {}),
  };
  const tasks = event.name === "todo_write" && !event.isError ? tasksOf(running?.input) : undefined;
  return {
    ...append(state, { kind: "tool", call }),
    tools: state.tools.filter((tool) => tool.id !== event.id),
    ...(tasks ? { tasks } : {}),
  };
}

/** A pipeline stage shows as a call of its own, its agent's tool lines nested under it, like a delegation. */
function withPipelineStage(state: AgentViewState, event: Extract<AgentEvent, { type: "pipeline_stage" }>): AgentViewState {
  const id = `pipeline-${event.pipelineId.slice(0, 8)}-${event.ordinal}`;
  const round = event.round > 0 ? ` (round ${event.round})` : "";
  if (event.status === "start") {
    const view: ToolCallView = {
      id,
      name: `stage ${event.stage}${round}`,
      input: { agent: event.agentId },
      status: "running",
      startedAt: Date.now(),
      subagent: { agentId: event.agentId, agentType: event.agentType, steps: [] },
    };
    return { ...state, tools: [...state.tools, view] };
  }
  const running = state.tools.find((tool) => tool.id === id);
  const status: ToolCallView["status"] = event.outcome === "error" ? "error" : event.outcome === "interrupted" ? "interrupted" : "done";
  const result =
    event.outcome === "no_structure" ? "ended without its structured report (recorded as no findings)" : (event.outcome ?? "done");
  const call: ToolCallView = {
    ...(running ?? { id, name: `stage ${event.stage}${round}`, input: { agent: event.agentId } }),
    status,
    result,
  };
  return {
    ...append(state, { kind: "tool", call }),
    tools: state.tools.filter((tool) => tool.id !== id),
    ...(event.usage ? { subagentUsage: addUsage(state.subagentUsage, event.usage) } : {}),
  };
}

/** The line that says content left the window, and what stands for it. */
export function evictionNote(reference: ContextReference, marker: string): string {
  const [from, to] = reference.turnRange;
  const turns = from === to ? `turn ${from}` : `turns ${from}-${to}`;
  return `Context: ${turns} moved out of the window as ${marker} (${reference.tokensSaved} tokens freed; retrievable)`;
}

/**
 * What the session does to a prompt before it is stored or sent (masks what
 * looks like a key or a token), said in the transcript rather than done
 * silently: the user may wonder why the model does not use the value.
 */
function maskedNote(prompt: string): TranscriptEntry[] {
  const { findings } = maskSecrets(prompt);
  if (findings.length === 0) return [];
  const count =
    findings.length === 1 ? "1 secret-looking value in your prompt was" : `${findings.length} secret-looking values in your prompt were`;
  const placeholders = [...new Set(findings)].map((id) => `[REDACTED:${id}]`).join(", ");
  return [{ kind: "note", tone: "dim", text: `${count} masked; the model sees ${placeholders}` }];
}

/** An event type newer than this UI: ignored rather than breaking the screen (and a type error here until handled). */
function unknownEvent(state: AgentViewState, event: never): AgentViewState {
  void event;
  return state;
}

/**
 * Finished blocks of the streaming answer go into the history, drawn as
 * markdown and printed for good (a long answer is not redrawn on every
 * delta); the unfinished block stays live, as plain text.
 */
function printFinishedBlocks(state: AgentViewState): AgentViewState {
  const cut = completedBlocksLength(state.streaming);
  if (cut === 0) return state;
  const finished = state.streaming.slice(0, cut).trimEnd();
  const printed = finished ? append(state, { kind: "assistant", text: finished, continued: state.streamedOut }) : state;
  return { ...printed, streaming: state.streaming.slice(cut), streamedOut: state.streamedOut || finished !== "" };
}

/** What was still live when the turn ended (an interrupted stream, a call cut short) goes into the history as it was. */
function flushLive(state: AgentViewState): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  if (state.streaming.trim()) entries.push({ kind: "assistant", text: state.streaming.trimEnd(), continued: state.streamedOut });
  for (const tool of state.tools) entries.push({ kind: "tool", call: { ...tool, status: "interrupted", result: "interrupted" } });
  return entries;
}

function closingNotes(result: AgentResult): TranscriptEntry[] {
  switch (result.stopReason) {
    case "interrupted":
      return [{ kind: "note", tone: "warning", text: "Interrupted. Tell Sylk what to do instead." }];
    case "max_turns":
      return [
        { kind: "note", tone: "warning", text: `Stopped after ${result.turns} model calls (agent.maxTurns); send "continue" to go on.` },
      ];
    case "max_tokens":
      return [{ kind: "note", tone: "warning", text: "The answer reached the token limit (model.maxTokens) and was cut." }];
    default:
      return [];
  }
}
