/**
 * How long a cancelled call may take to answer for itself (a command killed,
 * with the output it had printed) before the registry answers for it. Long
 * enough for a tool that watches its signal, short enough to feel immediate.
 */
const CANCEL_GRACE_MS = 500;

/** What the model reads for a call the user interrupted while it ran. */
export const CANCELLED_WHILE_RUNNING = "The user interrupted this call before it finished; it has no result.";

/** What the model reads for a call the user interrupted before it ran. */
export const CANCELLED_BEFORE_RUNNING = "The user interrupted before this call ran.";

const CANCELLED = Symbol("cancelled");

/**
 * Waits for a call, or for its cancellation: once the signal aborts, the call
 * has `graceMs` to settle on its own; after that the wait ends with
 * `"cancelled"` and whatever the call does later is discarded. A tool that
 * blocks on something that never comes (a read that never returns, a lock,
 * a server that never answers) cannot hold the turn past Esc.
 */
export function settledOrCancelled<T>(
  running: Promise<T>,
  signal: AbortSignal,
  graceMs: number = CANCEL_GRACE_MS,
): Promise<T | "cancelled"> {
  return new Promise<T | typeof CANCELLED>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = () => {
      timer = setTimeout(() => resolve(CANCELLED), graceMs);
    };
    const cleanUp = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", giveUp);
    };
    if (signal.aborted) giveUp();
    else signal.addEventListener("abort", giveUp, { once: true });
    running.then(
      (value) => {
        cleanUp();
        resolve(value);
      },
      (error: unknown) => {
        cleanUp();
        reject(error);
      },
    );
  }).then((value) => (value === CANCELLED ? "cancelled" : value));
}
