/**
 * Work the user waits on right now, as a process counts it: a search the
 * model made (grep) and is blocked on. While any runs, background indexing
 * in another process is asked to pause (`IndexPause`), so the search gets
 * the cores instead of sharing them with a first index that takes
 * minutes; the index picks up where it was once the last one ends.
 */
export class ForegroundWork {
  private running = 0;
  private readonly listeners = new Set<(busy: boolean) => void>();

  /** Whether some foreground work is running. */
  get busy(): boolean {
    return this.running > 0;
  }

  /** Runs `work` as foreground work: the first to start and the last to end tell the listeners. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running++ === 0) this.tell(true);
    try {
      return await work();
    } finally {
      if (--this.running === 0) this.tell(false);
    }
  }

  /** Called with `true` when foreground work starts and `false` when none is left; returns the unsubscribe. */
  onChange(listener: (busy: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private tell(busy: boolean): void {
    for (const listener of this.listeners) listener(busy);
  }
}
