/**
 * One consultation at a time per knowledge agent:
 * the waiting ones in priority order (critical > high > normal > low, first
 * come first served within a level); a running consultation is never
 * preempted. A waiting one whose caller's signal aborts leaves the queue and
 * rejects with `ConsultationCancelledError`.
 */

/** A consultation's priority, lowest first. */
export const CONSULT_PRIORITIES = ["low", "normal", "high", "critical"] as const;
export type ConsultPriority = (typeof CONSULT_PRIORITIES)[number];

export class ConsultationCancelledError extends Error {
  constructor(message = "Consultation cancelled: the caller stopped waiting before the knowledge agent was free.") {
    super(message);
    this.name = "ConsultationCancelledError";
  }
}

interface Waiting {
  rank: number;
  start(): void;
  cancel(error: ConsultationCancelledError): void;
}

export class ConsultationQueue {
  private readonly waiting: Waiting[] = [];
  private running = false;

  /** Consultations waiting (not the running one). */
  get pending(): number {
    return this.waiting.length;
  }

  /** Whether a consultation is running. */
  get busy(): boolean {
    return this.running;
  }

  /**
   * Runs `task` when the agent is free and it is the most urgent waiting
   * consultation. `signal` cancels it while it waits; once started, the task
   * is the one to watch the signal.
   */
  run<T>(priority: ConsultPriority, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(new ConsultationCancelledError());
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiting);
        if (index >= 0) {
          this.waiting.splice(index, 1);
          waiting.cancel(new ConsultationCancelledError());
        }
      };
      const waiting: Waiting = {
        rank: CONSULT_PRIORITIES.indexOf(priority),
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          this.running = true;
          let result: Promise<T>;
          try {
            result = task();
          } catch (error) {
            result = Promise.reject(error);
          }
          result.then(resolve, reject).finally(() => {
            this.running = false;
            this.startNext();
          });
        },
        cancel: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.insert(waiting);
      this.startNext();
    });
  }

  /** Rejects every waiting consultation (the running one finishes): when the session tree closes. */
  cancelWaiting(message?: string): number {
    const cancelled = this.waiting.splice(0);
    for (const waiting of cancelled) waiting.cancel(new ConsultationCancelledError(message));
    return cancelled.length;
  }

  /** Keeps `waiting` sorted: higher rank first, then by arrival. */
  private insert(entry: Waiting): void {
    const index = this.waiting.findIndex((other) => other.rank < entry.rank);
    if (index < 0) this.waiting.push(entry);
    else this.waiting.splice(index, 0, entry);
  }

  private startNext(): void {
    if (this.running) return;
    this.waiting.shift()?.start();
  }
}
