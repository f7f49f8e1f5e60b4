import type { AgentEvent } from "./agent-events.js";

/** Output is passed on at most this often: a chatty build must not flood the screen's redraws. */
const FLUSH_INTERVAL_MS = 100;

/**
 * Runs a tool call and yields its output as `tool_output` events while it
 * runs, coalesced to one event per interval; returns the call's result.
 * The output the tool reports through `onOutput` is only for watching: the
 * result holds what the model reads.
 */
export async function* streamToolOutput<T>(id: string, run: (onOutput: (chunk: string) => void) => Promise<T>): AsyncGenerator<AgentEvent, T> {
  let pending = "";
  let wake: (() => void) | undefined;
  const onOutput = (chunk: string) => {
    pending += chunk;
    wake?.();
  };
  let settled = false;
  const running = run(onOutput).finally(() => {
    settled = true;
    wake?.();
  });
  // Rejections surface when `running` is awaited below, not as unhandled ones meanwhile.
  running.catch(() => undefined);
  while (!settled) {
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (settled || pending) resolve();
    });
    wake = undefined;
    if (pending && !settled) {
      const text = pending;
      pending = "";
      yield { type: "tool_output", id, text };
      await Promise.race([running, new Promise((resolve) => setTimeout(resolve, FLUSH_INTERVAL_MS))]);
    }
  }
  if (pending) yield { type: "tool_output", id, text: pending };
  return await running;
}
