export interface ChangeBatcherOptions {
  /** Quiet time after the last change before the batch goes. */
  debounceMs: number;
  /** The batch goes this long after its first change even if changes keep coming (a long build, a checkout). */
  maxWaitMs: number;
  /** The paths changed since the last batch, each once, in the order first seen. */
  onBatch: (paths: string[]) => void;
}

/**
 * Gathers changed paths into batches: a batch goes after `debounceMs` without
 * a change, or `maxWaitMs` after its first change, whichever comes first.
 * Runs on the global timers and `Date.now`, so a test drives it with fake
 * timers.
 */
export class ChangeBatcher {
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private firstPendingAt = 0;

  constructor(private readonly options: ChangeBatcherOptions) {}

  add(path: string): void {
    if (this.pending.size === 0) this.firstPendingAt = Date.now();
    this.pending.add(path);
    if (this.timer) clearTimeout(this.timer);
    const waited = Date.now() - this.firstPendingAt;
    const { debounceMs, maxWaitMs } = this.options;
    this.timer = setTimeout(() => this.flush(), Math.max(0, Math.min(debounceMs, maxWaitMs - waited)));
  }

  /** Drops what is pending; nothing more is reported. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /** Reports what is pending now, without waiting for the quiet time (a search wants the changes made so far). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const paths = [...this.pending];
    this.pending.clear();
    this.options.onBatch(paths);
  }
}
