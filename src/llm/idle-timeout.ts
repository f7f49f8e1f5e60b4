import { ModelError } from "./model-errors.js";

/**
 * The SDKs' request timeout ends when a response's headers arrive: a stream
 * that stalls after them (the server or a proxy stops sending and keeps the
 * socket open) would hold the turn forever. This passes `source` on and, when
 * nothing arrives for `ms`, calls `abort` to release the connection and fails
 * with a retryable timeout.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, ms: number, abort: () => void): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let stalled = false;
  try {
    for (;;) {
      const next = iterator.next();
      let timer: NodeJS.Timeout | undefined;
      const silence = new Promise<"stalled">((resolve) => {
        timer = setTimeout(() => resolve("stalled"), ms);
      });
      const step = await Promise.race([next, silence]).finally(() => clearTimeout(timer));
      if (step === "stalled") {
        stalled = true;
        // Nobody waits for this read any more; once aborted it settles, and must not go unhandled.
        next.catch(() => undefined);
        abort();
        throw new ModelError(`The model stopped sending its answer: nothing arrived for ${ms / 1000} s.`, "timeout", true);
      }
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // A stalled read would keep `return` waiting; the abort has released it.
    if (!stalled) await iterator.return?.();
  }
}
