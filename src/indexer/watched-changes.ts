import { isIgnoreRuleFile } from "./ignore-rule-files.js";

/**
 * What a running project watcher saw change since the index last matched the
 * disk: while a watch holds, has reported no error, and an index pass begun
 * after it held has completed, every file not named here is as the manifest
 * says, and a search needs no walk and no `stat` of the tree to know it. The
 * named files are read as they are on disk.
 *
 * The watcher reports in debounced batches, so each question first asks it
 * for what it has not reported yet (`flush`): a file written just before
 * the question is named in the answer.
 */
export class WatchedChanges {
  private sequence = 0;
  /** Each path reported since it last settled, with the sequence number of its latest report. */
  private readonly reported = new Map<string, number>();
  private flush: (() => Promise<void>) | undefined;

  /**
   * The watch holds and a pass over the whole project begun after it held
   * has committed: from now on, what the watcher reports is what changed.
   * `flush` resolves once the watcher has reported every event it received
   * before the call.
   */
  vouch(flush: () => Promise<void>): void {
    this.flush = flush;
  }

  /** The watcher failed or stopped: nothing is vouched for until `vouch` again. */
  revoke(): void {
    this.flush = undefined;
  }

  get vouching(): boolean {
    return this.flush !== undefined;
  }

  /**
   * Paths the watcher reported (added, changed or removed). An ignore file
   * among them can hide or reveal whole directories the watcher never
   * named: nothing is vouched for until the full pass that follows it.
   */
  record(paths: readonly string[]): void {
    for (const path of paths) {
      this.reported.set(path, ++this.sequence);
      if (isIgnoreRuleFile(path)) this.revoke();
    }
  }

  /** The point an index pass starts from: what was reported before it, the pass reads as it is now. */
  mark(): number {
    return this.sequence;
  }

  /**
   * An index pass that started at `mark` committed: these paths (all, when
   * omitted: a pass over the whole project) are indexed as they were at or
   * after their last report before it. A path reported again since stays.
   */
  settle(mark: number, paths?: readonly string[]): void {
    if (!paths) {
      for (const [path, sequence] of this.reported) if (sequence <= mark) this.reported.delete(path);
      return;
    }
    for (const path of paths) if ((this.reported.get(path) ?? Number.POSITIVE_INFINITY) <= mark) this.reported.delete(path);
  }

  /**
   * The paths that changed since the index last read them, the watcher's
   * pending events included; undefined when nothing is vouched for (no watch,
   * a watch that failed, an ignore file changed) or the signal ended the wait.
   */
  async changes(signal: AbortSignal): Promise<ReadonlySet<string> | undefined> {
    const flush = this.flush;
    if (!flush) return undefined;
    if (!(await this.flushed(flush, signal)) || !this.vouching) return undefined;
    return new Set(this.reported.keys());
  }

  /** Whether the watcher reported what it had before the signal ended the wait; a watcher that cannot answer vouches no more. */
  private async flushed(flush: () => Promise<void>, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    let stop: (flushed: boolean) => void = () => undefined;
    const stopped = new Promise<boolean>((resolve) => (stop = resolve));
    const onAbort = () => stop(false);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await Promise.race([flush().then(() => true), stopped]);
    } catch {
      this.revoke();
      return false;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}
