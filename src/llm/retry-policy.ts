import { ModelError } from "./model-errors.js";
import type { ModelStreamEvent } from "./model-types.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  /**
   * The retry cap: the longest wait before one retry. Backoff grows up to
   * it, and a server that asks for a longer wait (`retry-after`) fails the
   * call at once, naming the wait, instead of holding the turn that long.
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 60_000 };

/**
 * Runs one streaming attempt after another until one completes: rate limits
 * (429), overload (529), server errors, dropped connections and streams cut
 * mid-way are retried with exponential backoff and jitter (or the server's
 * retry-after, when it is within the cap); anything else ends the call.
 * Before each retry a `retry` event tells the consumer to discard the partial
 * output it has seen, so a turn is neither lost nor duplicated.
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
      if (error.retryable && error.retryAfterMs !== undefined && error.retryAfterMs > policy.maxDelayMs) throw waitTooLong(error, policy);
      if (!error.retryable || number >= policy.maxAttempts) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (number - 1));
      const delayMs = Math.round(error.retryAfterMs ?? backoff * (0.75 + Math.random() * 0.5));
      yield { type: "retry", attempt: number + 1, delayMs, reason: error.message };
      await sleep(delayMs, signal);
    }
  }
}

/** A server's stated wait beyond the cap: the call fails now, saying how long the server wanted. */
function waitTooLong(error: ModelError, policy: RetryPolicy): ModelError {
  const wait = formatWait(error.retryAfterMs ?? 0);
  return new ModelError(
    `${error.message} The server asked to retry after ${wait}, longer than Sylk waits (model.retryMaxDelayMs, ` +
      `${formatWait(policy.maxDelayMs)}); giving up. Try again in ${wait}, or raise model.retryMaxDelayMs to wait for it.`,
    error.kind,
    false,
    error.retryAfterMs,
    error.status,
  );
}

/** A wait as people say it: 800 ms, 45 s, 12 min, 24 h. */
function formatWait(milliseconds: number): string {
  if (milliseconds < 1_000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1_000;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  const minutes = seconds / 60;
  if (minutes < 120) return `${Math.round(minutes)} min`;
  return `${Math.round(minutes / 60)} h`;
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
