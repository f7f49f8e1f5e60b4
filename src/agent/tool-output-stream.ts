import type { AgentEvent } from "./agent-events.js";

/** Output is passed on at most this often: a chatty build must not flood the screen's redraws. */
const FLUSH_INTERVAL_MS = 100;

/**
 * Runs a tool call and yields what it reports while it runs: its output as
 * `tool_output` events, coalesced to one event per interval, and the events
 * of a sub-agent it started, in order. Returns the call's result. What the
 * tool reports is only for watching: the result holds what the model reads.
 */
export async function* streamToolOutput<T>(
  id: string,
  run: (onOutput: (chunk: string) => void, onEvent: (event: AgentEvent) => void) => Promise<T>,
): AsyncGenerator<AgentEvent, T> {
  const queue: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  const onOutput = (chunk: string) => {
    const last = queue.at(-1);
    if (last?.type === "tool_output" && last.id === id) last.text += chunk;
    else queue.push({ type: "tool_output", id, text: chunk });
    wake?.();
  };
  const onEvent = (event: AgentEvent) => {
    queue.push(event);
    wake?.();
  };
  let settled = false;
  const running = run(onOutput, onEvent).finally(() => {
    settled = true;
    wake?.();
  });
  // Rejections surface when `running` is awaited below, not as unhandled ones meanwhile.
  running.catch(() => undefined);
  while (!settled) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (settled || queue.length > 0) resolve();
    });
    wake = undefined;
    if (settled) break;
    let output = false;
    for (let event = queue.shift(); event; event = queue.shift()) {
      output ||= event.type === "tool_output" && event.id === id;
      yield event;
    }
    if (output) await Promise.race([running, new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS))]);
  }
  for (let event = queue.shift(); event; event = queue.shift()) yield event;
  return await running;
}
