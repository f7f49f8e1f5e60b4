import pLimit from "p-limit";
import type { AgentEvent } from "./agent-events.js";

/** Output is passed on at most this often: a chatty build must not flood the screen's redraws. */
const FLUSH_INTERVAL_MS = 100;

/** One tool call to run: its id, and the run, told where to report output and a sub-agent's events. */
export interface ToolRunJob<T> {
  id: string;
  run: (onOutput: (chunk: string) => void, onEvent: (event: AgentEvent) => void) => Promise<T>;
}

/**
 * Runs a tool call and yields what it reports while it runs: its output as
 * `tool_output` events, coalesced to one event per interval, and the events
 * of a sub-agent it started, in order. Returns the call's result. What the
 * tool reports is only for watching: the result holds what the model reads.
 */
export async function* streamToolOutput<T>(id: string, run: ToolRunJob<T>["run"]): AsyncGenerator<AgentEvent, T> {
  const [result] = yield* streamToolRuns([{ id, run }], 1);
  return (await result) as T;
}

/**
 * Runs the calls at most `limit` at a time (p-limit), yielding what each
 * reports as it happens, interleaved (each event names its call or its
 * sub-agent's call). Returns each call's settled result in call order,
 * once all have settled: a rejection is the caller's to handle per call.
 */
export async function* streamToolRuns<T>(jobs: ReadonlyArray<ToolRunJob<T>>, limit: number): AsyncGenerator<AgentEvent, Array<Promise<T>>> {
  const queue: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  const push = (event: AgentEvent) => {
    queue.push(event);
    wake?.();
  };
  const gate = pLimit(Math.max(1, limit));
  let pending = jobs.length;
  const runs = jobs.map((job) => {
    const onOutput = (chunk: string) => {
      const last = queue.at(-1);
      if (last?.type === "tool_output" && last.id === job.id) last.text += chunk;
      else push({ type: "tool_output", id: job.id, text: chunk });
      wake?.();
    };
    const running = gate(() => job.run(onOutput, push)).finally(() => {
      pending--;
      wake?.();
    });
    // Rejections surface where the caller awaits each result, not as unhandled ones meanwhile.
    running.catch(() => undefined);
    return running;
  });
  while (pending > 0) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (pending === 0 || queue.length > 0) resolve();
    });
    wake = undefined;
    if (pending === 0) break;
    let output = false;
    for (let event = queue.shift(); event; event = queue.shift()) {
      output ||= event.type === "tool_output";
      yield event;
    }
    if (output) await Promise.race([Promise.allSettled(runs), new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS))]);
  }
  for (let event = queue.shift(); event; event = queue.shift()) yield event;
  await Promise.allSettled(runs);
  return runs;
}
