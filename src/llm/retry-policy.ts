import { ModelError } from "./model-errors.js";
import type { ModelStreamEvent } from "./model-types.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 20_000 };

/**
 * Runs one streaming attempt after another until one completes: rate limits
 * (429), overload (529), server errors, dropped connections and streams cut
 * mid-way are retried with exponential backoff and jitter (or the server's
 * retry-after); anything else ends the call. Before each retry a `retry`
 * event tells the consumer to discard the partial output it has seen, so a
 * turn is neither lost nor duplicated.
 */
export async function* withRetries(
  attempt: (signal?: AbortSignal) => AsyncIterable<ModelStreamEvent>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  classify: (error: unknown) => ModelError = (error) => error as ModelError,
): AsyncGenerator<ModelStreamEvent> {
  for (let number = 1; ; number++) {
    try {
      yield* attempt(signal);
      return;
    } catch (raw) {
      const error = classify(raw);
      if (signal?.aborted || error.kind === "aborted") throw error;
      if (!error.retryable || number >= policy.maxAttempts) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (number - 1));
      const delayMs = Math.round(error.retryAfterMs ?? backoff * (0.75 + Math.random() * 0.5));
      yield { type: "retry", attempt: number + 1, delayMs, reason: error.message };
      await sleep(delayMs, signal);
    }
  }
}

function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(new ModelError("Interrupted while waiting to retry.", "aborted", false));
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}
