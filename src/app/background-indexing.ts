import { setImmediate as nextMacrotask } from "node:timers/promises";
import { formatCount, formatDuration } from "../format/numbers.js";
import type { IndexConfig } from "../config/schema.js";
import type { IndexProgress, IndexSummary, ProjectIndexer } from "../indexer/project-indexer.js";
import { describeRepair } from "../store/snapshot-damage.js";
import { ProjectWatcher } from "../indexer/project-watcher.js";
import { isIgnoreRuleFile } from "../indexer/ignore-rule-files.js";
import type { WatchedChanges } from "../indexer/watched-changes.js";
import type { VectorBackfill } from "../indexer/vector-backfill.js";
import { takeoverNotice, type IndexLock } from "../project/index-lock.js";
import { whenAborted } from "../abort-signal.js";
import { errorMessage } from "../errors.js";
import type { IndexProcessEvent, SeparateIndexRun } from "./index-process.js";
import type { ProjectServices } from "./project-services.js";

/** What the status line and the progress line show of the index. */
export type IndexView =
  | { state: "pending" }
  | { state: "off" }
  | { state: "waiting"; holderPid: number }
  | { state: "indexing"; progress: IndexProgress }
  | { state: "embedding"; embedded: number; remaining: number }
  | { state: "refreshing"; files: number }
  | { state: "fresh" }
  | { state: "failed"; message: string };

export interface IndexNotice {
  tone: "info" | "warning" | "error";
  text: string;
}

/** A watcher as this class needs it; `ProjectWatcher` by default. */
export interface ChangeWatcher {
  start(): Promise<void>;
  close(): Promise<void>;
  /** Resolves once the changes seen so far are reported; a watcher without it never vouches for the tree. */
  flush?(): Promise<void>;
}

/**
 * An opened project's background indexing, wired to its services: what the
 * interactive session, `sylk mcp serve` and `sylk ask`'s watch each run.
 */
export function backgroundIndexingOf(
  services: Pick<ProjectServices, "paths" | "loadedConfig" | "indexer" | "indexLock" | "backfill" | "watchedChanges">,
  separateProcess?: BackgroundIndexingDeps["separateProcess"],
): BackgroundIndexing {
  return new BackgroundIndexing({
    root: services.paths.root,
    config: services.loadedConfig.config.index,
    indexer: services.indexer,
    lock: services.indexLock,
    backfill: services.backfill,
    ...(separateProcess ? { separateProcess } : {}),
    changes: services.watchedChanges,
  });
}

export interface BackgroundIndexingDeps {
  root: string;
  config: IndexConfig;
  indexer: Pick<ProjectIndexer, "run" | "refreshPaths">;
  lock: Pick<IndexLock, "acquire" | "release">;
  backfill: Pick<VectorBackfill, "missingCount" | "run">;
  createWatcher?: (onChange: (paths: string[]) => void, onError: (error: Error) => void) => ChangeWatcher;
  /**
   * Where a pass with more than `handOffAbove` files to index runs instead
   * of this process (a `sylk index` process: `runIndexProcess`). Without it
   * every pass runs here.
   */
  separateProcess?: { handOffAbove: number; run: SeparateIndexRun };
  /** Told what the watcher reports and what each pass indexed, so that grep can trust the index between passes without a walk. */
  changes?: Pick<WatchedChanges, "record" | "mark" | "settle" | "vouch" | "revoke">;
}

/** Progress redraws at most this often (state changes show at once). */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Keeps the index current while the TUI runs, without ever blocking it: the
 * start-up index, `/index`, and the watcher's batches run one at a time in
 * the background (one indexer, one lock holder), and the UI only reads
 * `snapshot()` and the notices. Searches meanwhile use whatever is committed.
 */
export class BackgroundIndexing {
  private view: IndexView = { state: "pending" };
  private readonly listeners = new Set<() => void>();
  private readonly noticeListeners = new Set<(notice: IndexNotice) => void>();
  private readonly fileListeners = new Set<(paths: readonly string[]) => void>();
  private readonly abort = new AbortController();
  private queue: Promise<void> = Promise.resolve();
  private readonly pendingPaths = new Set<string>();
  private drainQueued = false;
  private watcher: ChangeWatcher | undefined;
  private watching: Promise<void> | undefined;
  /** The watch holds and has reported no error: what it reports is what changes. */
  private watchHolds = false;
  private closed = false;
  /** `start` was called: the project may be indexed. */
  private started = false;
  private lastPublished = -Infinity;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: BackgroundIndexingDeps) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly snapshot = (): IndexView => this.view;

  onNotice(listener: (notice: IndexNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  /** Paths the watcher saw change (project-relative): between answers, the user's own edits. */
  onFilesChanged(listener: (paths: readonly string[]) => void): () => void {
    this.fileListeners.add(listener);
    return () => this.fileListeners.delete(listener);
  }

  /**
   * Consent given: watch the project, then index what changed since last
   * time. In this order a change made once the watch holds is reported by
   * it, and one made before is seen by the scan that follows, so a single
   * pass leaves nothing unseen. (Scanning first left a gap between the scan
   * and the watch, which took a second full pass to close: a stat of every
   * file on this thread just as the user starts typing.)
   */
  start(): void {
    this.started = true;
    this.enqueue(async () => {
      // Listing the project's directories for the watch is the first part of looking at it.
      this.set({ state: "indexing", progress: { phase: "scanning", indexed: 0, total: 0, failed: 0, elapsedMs: 0 } });
      await this.startWatcher();
      if (!this.closed) await this.fullRun(false);
    });
  }

  /** Consent refused: no index, no watcher. */
  disable(): void {
    this.set({ state: "off" });
  }

  /** `/index`: look for changes now and say what was done. */
  refreshNow(): void {
    if (this.view.state === "off" || this.view.state === "pending") return;
    this.enqueue(() => this.fullRun(true));
  }

  /**
   * Another process (`sylk ask` beside this session) wants the index current:
   * a pass over the project once the indexer is free. Resolves with the
   * state after it: `fresh`, or why not (`off`, `pending`: no consent here,
   * `failed`).
   */
  catchUp(): Promise<IndexView["state"]> {
    // Before consent (or without it) there is nothing to catch up with: say how things stand.
    if (!this.started || this.view.state === "off") return Promise.resolve(this.view.state);
    this.enqueue(() => this.fullRun(false));
    return this.queue.then(() => this.view.state);
  }

  /** Files the watcher saw change: refreshed as one batch once the indexer is free. */
  changed(paths: readonly string[]): void {
    this.deps.changes?.record(paths);
    for (const listener of this.fileListeners) listener(paths);
    for (const path of paths) this.pendingPaths.add(path);
    if (this.drainQueued) return;
    this.drainQueued = true;
    this.enqueue(() => this.drainChanges());
  }

  /** Resolves once the watcher reports changes (for tests and benchmarks). */
  whenWatching(): Promise<void> {
    return this.watching ?? Promise.reject(new Error("The watcher has not started."));
  }

  /** Stops the watcher and any indexing (committed batches are kept) and waits for both. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopVouching();
    this.abort.abort();
    await this.watcher?.close();
    await this.queue;
    clearTimeout(this.progressTimer);
  }

  private enqueue(operation: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.closed) return;
      try {
        await operation();
      } catch (error) {
        if (this.closed) return;
        const message = errorMessage(error);
        this.set({ state: "failed", message });
        this.notify({ tone: "error", text: `Indexing failed: ${message}. Search uses what was indexed before; /index retries.` });
      }
    });
  }

  private async fullRun(announce: boolean): Promise<void> {
    const mark = this.deps.changes?.mark() ?? 0;
    const watchedThroughout = this.watchHolds;
    let summary = await this.withLock(() => this.runHere());
    if (summary?.handedOff && !this.closed) summary = await this.runElsewhere();
    if (!summary || this.closed) return;
    if (!summary.interrupted) this.indexedWhileWatched(mark, watchedThroughout);
    this.set({ state: "fresh" });
    const text = describeSummary(summary);
    if (text && (announce || summary.before !== "fresh")) this.notify({ tone: summary.failed > 0 ? "warning" : "info", text });
    this.reportRepairs(summary);
  }

  /** A pass in this process; one with more to index than the separate process takes is handed off before it changes anything. */
  private async runHere(): Promise<IndexSummary> {
    const handOffAbove = this.deps.separateProcess?.handOffAbove;
    const run = this.deps.indexer.run(this.abort.signal, handOffAbove === undefined ? {} : { handOffAbove });
    let step = await run.next();
    while (!step.done) {
      this.set({ state: "indexing", progress: step.value });
      // Commits are synchronous; a macrotask between batches lets keystrokes through.
      await nextMacrotask();
      step = await run.next();
    }
    if (!step.value.interrupted && !step.value.handedOff) await this.embedMissing();
    return step.value;
  }

  /** The pass in the separate process, which takes the lock itself: its events become this view. */
  private runElsewhere(): Promise<IndexSummary> {
    const separate = this.deps.separateProcess;
    if (!separate) throw new Error("No separate process to hand the run to.");
    return separate.run(this.abort.signal, (event) => this.showElsewhere(event));
  }

  private showElsewhere(event: IndexProcessEvent): void {
    if (this.closed) return;
    if (event.type === "progress") this.set({ state: "indexing", progress: event.progress });
    else if (event.type === "waiting") this.set({ state: "waiting", holderPid: event.holderPid });
    else if (event.type === "embedding") this.set({ state: "embedding", embedded: event.embedded, remaining: event.remaining });
    else this.notify({ tone: "info", text: event.text });
  }

  /** A damaged full-text snapshot rebuilt is said once: the index works again, but the damage may have a cause worth knowing. */
  private reportRepairs(summary: IndexSummary): void {
    for (const repair of summary.repairedFullText) this.notify({ tone: "warning", text: describeRepair(repair) });
  }

  private async drainChanges(): Promise<void> {
    this.drainQueued = false;
    const paths = [...this.pendingPaths];
    this.pendingPaths.clear();
    if (paths.length === 0) return;
    // A changed ignore file can hide or reveal whole directories: only a full pass sees that.
    if (paths.some(isIgnoreRuleFile)) return this.fullRun(false);
    this.set({ state: "refreshing", files: paths.length });
    const mark = this.deps.changes?.mark() ?? 0;
    const summary = await this.withLock(() => this.deps.indexer.refreshPaths(paths, this.abort.signal));
    if (this.closed) return;
    if (summary && !summary.interrupted) this.deps.changes?.settle(mark, paths);
    this.set({ state: "fresh" });
    if (summary) this.reportRepairs(summary);
  }

  /** Vectors from a remote embedder are filled after the files are in (the built-in one computes them while indexing). */
  private async embedMissing(): Promise<void> {
    if (this.deps.backfill.missingCount() === 0) return;
    try {
      for await (const progress of this.deps.backfill.run(this.abort.signal)) {
        this.set({ state: "embedding", embedded: progress.embedded, remaining: progress.remaining });
      }
    } catch (error) {
      if (this.closed) return;
      this.notify({ tone: "warning", text: `Embedding failed (${errorMessage(error)}); full-text search works, and /index retries.` });
    }
  }

  private async withLock<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      await this.deps.lock.acquire({
        signal: this.abort.signal,
        onWait: (holder) => this.set({ state: "waiting", holderPid: holder.pid }),
        onTakeover: (takeover) => this.notify({ tone: "info", text: takeoverNotice(takeover) }),
      });
    } catch (error) {
      if (this.closed) return undefined;
      throw error;
    }
    try {
      return await work();
    } finally {
      this.deps.lock.release();
    }
  }

  /** Starts the watcher; resolves once it holds, or once it has failed (said in a notice: indexing goes on without it). */
  private async startWatcher(): Promise<void> {
    const create =
      this.deps.createWatcher ??
      ((onChange, onError) => new ProjectWatcher({ root: this.deps.root, config: this.deps.config, onChange, onError }));
    const watcher = create(
      (paths) => this.changed(paths),
      (error) => {
        this.stopVouching();
        this.notify({ tone: "warning", text: `Watching files failed (${error.message}); /index refreshes the index by hand.` });
      },
    );
    this.watcher = watcher;
    this.watching = watcher.start();
    try {
      // Closing while the watch starts ends the wait: a watcher closed before it holds never says it does.
      await Promise.race([this.watching, whenAborted(this.abort.signal)]);
      // From the pass that begins now on, the watch vouches, with the index, for what is on disk.
      this.watchHolds = !this.closed;
    } catch (error) {
      if (!this.closed)
        this.notify({ tone: "warning", text: `Could not watch the project (${errorMessage(error)}); /index refreshes by hand.` });
    }
  }

  /**
   * A pass over the project committed: what the watcher reported before it
   * began is indexed, and when the watch held from its start to now, the
   * index and the watcher's reports together say what is on disk.
   */
  private indexedWhileWatched(mark: number, watchedThroughout: boolean): void {
    this.deps.changes?.settle(mark);
    const watcher = this.watcher;
    if (watchedThroughout && this.watchHolds && watcher?.flush) this.deps.changes?.vouch(() => watcher.flush?.() ?? Promise.resolve());
  }

  private stopVouching(): void {
    this.watchHolds = false;
    this.deps.changes?.revoke();
  }

  /**
   * A new state is shown at once; progress within a state at most every
   * `PROGRESS_INTERVAL_MS`. Batches finish dozens of times a second on a
   * large repository, and each redraw would take one of the terminal's
   * frames from the keystrokes being typed meanwhile.
   */
  private set(view: IndexView): void {
    const sameState = view.state === this.view.state;
    this.view = view;
    if (sameState && (view.state === "indexing" || view.state === "embedding")) {
      const wait = this.lastPublished + PROGRESS_INTERVAL_MS - performance.now();
      if (wait > 0) {
        this.progressTimer ??= setTimeout(() => this.publish(), wait);
        return;
      }
    }
    this.publish();
  }

  private publish(): void {
    clearTimeout(this.progressTimer);
    this.progressTimer = undefined;
    this.lastPublished = performance.now();
    for (const listener of this.listeners) listener();
  }

  private notify(notice: IndexNotice): void {
    for (const listener of this.noticeListeners) listener(notice);
  }
}

function describeSummary(summary: IndexSummary): string | undefined {
  if (summary.before === "fresh" && summary.indexed + summary.deleted === 0) {
    return `Index is fresh (${formatCount(summary.scanned)} files checked in ${formatDuration(summary.durationMs)}).`;
  }
  const parts = [`${formatCount(summary.indexed)} ${summary.indexed === 1 ? "file" : "files"} indexed`];
  if (summary.deleted > 0) parts.push(`${formatCount(summary.deleted)} removed`);
  if (summary.failed > 0) parts.push(`${formatCount(summary.failed)} failed`);
  const verb = summary.interrupted ? "Indexing interrupted" : "Indexed";
  return `${verb}: ${parts.join(", ")} in ${formatDuration(summary.durationMs)}.`;
}
