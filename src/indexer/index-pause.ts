/**
 * Pauses at most this long without a word: a session that asked for a
 * pause and then hung (or lost the message that resumes) cannot stall its
 * index for longer. A search the model waits on takes well under a second.
 */
export const MAX_PAUSE_MS = 10_000;

/** How long a paused worker sleeps before it looks at the flag again (a wake-up is normally sent at once). */
const RECHECK_MS = 1_000;

/**
 * A background index that gives the cores to work the user is waiting on
 * (`sylk index --for-session` while the session's grep runs). While paused,
 * each file worker stops between two files, blocked on a flag shared with
 * this thread, so the CPU is free within one file's work instead of after
 * the tasks each worker holds (`TASKS_PER_THREAD` of up to 32 files); the
 * main thread commits no batch until it resumes (`whenRunning`).
 * Only pool tasks carry the flag: a file processed on this thread never
 * waits, since the message that resumes must reach this thread.
 */
export class IndexPause {
  /** 1 while paused; read by the workers (`waitWhilePaused`). */
  readonly flag = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  private resumeTimer: NodeJS.Timeout | undefined;
  private waiting: Array<() => void> = [];

  get paused(): boolean {
    return Atomics.load(this.flag, 0) === 1;
  }

  pause(): void {
    Atomics.store(this.flag, 0, 1);
    clearTimeout(this.resumeTimer);
    this.resumeTimer = setTimeout(() => this.resume(), MAX_PAUSE_MS);
    this.resumeTimer.unref();
  }

  resume(): void {
    clearTimeout(this.resumeTimer);
    this.resumeTimer = undefined;
    Atomics.store(this.flag, 0, 0);
    Atomics.notify(this.flag, 0);
    for (const wake of this.waiting.splice(0)) wake();
  }

  /**
   * On the main thread, before it commits a batch: resolves at once unless
   * paused, else once resumed or `signal` aborts. It waits without blocking, so the message
   * that resumes still arrives; committing (SQLite, the full-text
   * postings) is a third of a first index's CPU, and would go on using it
   * for the results the workers finished before they stopped.
   */
  whenRunning(signal?: AbortSignal): Promise<void> {
    if (!this.paused || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      // A run stopped while paused (the session ended) commits what it has and ends at once.
      const done = () => {
        signal?.removeEventListener("abort", done);
        resolve();
      };
      signal?.addEventListener("abort", done, { once: true });
      this.waiting.push(done);
    });
  }
}

/** In a file worker, between two files: returns at once unless the run is paused, else once it resumes. */
export function waitWhilePaused(flag: Int32Array | undefined): void {
  if (!flag) return;
  while (Atomics.load(flag, 0) === 1) Atomics.wait(flag, 0, 1, RECHECK_MS);
}

/** What a session writes, one a line, on the stdin of its `sylk index --for-session` process. */
export const SESSION_PAUSE_LINE = "pause";
export const SESSION_RESUME_LINE = "resume";
