import type { AgentEvent } from "../agent/agent-events.js";
import { summariseCall } from "../format/call-summary.js";
import { firstLine } from "./format/text.js";
import type { SubAgentView, ToolCallView } from "./transcript.js";

/** One item of the agent's task list (`todo_write`). */
export interface TaskView {
  content: string;
  status: "pending" | "in_progress" | "done";
}

/** The list a successful `todo_write` call set (its input was validated before it ran). */
export function tasksOf(input: unknown): TaskView[] | undefined {
  const todos = (input as { todos?: unknown } | undefined)?.todos;
  if (!Array.isArray(todos)) return undefined;
  return todos.flatMap((todo: { content?: unknown; status?: unknown }) =>
    typeof todo?.content === "string" && (todo.status === "pending" || todo.status === "in_progress" || todo.status === "done")
      ? [{ content: todo.content, status: todo.status }]
      : [],
  );
}

/** What a running call printed: only its end is ever shown, so only its end is kept. */
const LIVE_TAIL_CHARACTERS = 4_000;

/** The lines a running call has printed once `text` is added, counted as it streams (its tail keeps only the end). */
export function linesAfter(tool: ToolCallView, text: string): number {
  const before = tool.tail ?? "";
  const finished = (tool.printedLines ?? 0) - (before !== "" && !before.endsWith("\n") ? 1 : 0);
  const newlines = text.split("\n").length - 1;
  const open = (before + text).endsWith("\n") || before + text === "" ? 0 : 1;
  return finished + newlines + open;
}

/** The end of what a running call printed, which is all that is shown. */
export function keepTail(text: string): string {
  return text.length > LIVE_TAIL_CHARACTERS ? text.slice(-LIVE_TAIL_CHARACTERS) : text;
}

/** The running call `toolUseId` with its sub-agent view changed. */
export function withSubAgent(
  tools: readonly ToolCallView[],
  toolUseId: string,
  change: (view: SubAgentView | undefined) => SubAgentView | undefined,
): ToolCallView[] {
  return tools.map((tool) => {
    if (tool.id !== toolUseId) return tool;
    const subagent = change(tool.subagent);
    return subagent ? { ...tool, subagent } : tool;
  });
}

/** A sub-agent's tool calls as lines under the call that started it; its sub-agents' work shows as theirs. */
export function subAgentStep(view: SubAgentView, event: AgentEvent): SubAgentView {
  if (event.type === "tool_use")
    return {
      ...view,
      steps: [...view.steps, { id: event.id, text: `${event.name}(${summariseCall(event.name, event.input)})`, status: "running" }],
    };
  if (event.type === "tool_result") {
    const status: ToolCallView["status"] = event.permission === "denied" ? "denied" : event.isError ? "error" : "done";
    const result = firstLine(event.display ?? event.output);
    return {
      ...view,
      steps: view.steps.map((step) => (step.id === event.id ? { ...step, text: `${step.text} ⎿ ${result}`, status } : step)),
    };
  }
  return view;
}
