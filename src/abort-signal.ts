/** Resolves once `signal` is aborted (at once if it already is). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * `work`'s result, or undefined as soon as `signal` is aborted, whether or
 * not `work` heeds the signal itself: a caller that must stop at once (Esc
 * during a tool) does not wait on a part that is slow to notice.
 */
export async function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return undefined;
  return Promise.race([work, whenAborted(signal).then(() => undefined)]);
}
