import type { PersistentFullText } from "../search/persistent-full-text.js";
import { deleteMeta, getMeta, setMeta, type SqliteDatabase } from "../store/database.js";
import { ensureDeferredIndexes } from "../store/deferred-indexes.js";
import type { FullTextIndexDamage } from "../store/snapshot-damage.js";
import { DirectoryStatesInPathOrder } from "../store/directory-state-pages.js";
import { type DirectoryStateRepository, type StoredDirectoryState, withJoinedNames } from "../store/directory-state-repository.js";
import { directoryOf, type FileRepository, type ManifestEntry } from "../store/file-repository.js";
import { FileRunner, type FileRunnerDeps } from "./file-runner.js";
import { FileWorkQueue } from "./file-work-queue.js";
import { addOutcome, emptyIndexSummary, type IndexSummary } from "./index-summary.js";
import type { IndexWriter } from "./index-writer.js";
import type { IndexPause } from "./index-pause.js";
import { diffManifest, isFresh, type ManifestDiff, ManifestDiffer } from "./manifest-diff.js";
import { byPriority } from "./priority.js";
import { classifyPaths } from "./path-classification.js";
import { countFilesToIndex, scanTree, walkRulesKey } from "./scanner.js";
import { FIRST_WALK_META_KEY, planFullWalk, type RunPlan, settleWalk } from "./full-walk-plan.js";
import { LargePass, type LargePassDeps } from "./large-pass.js";
import type { DirectoriesToRemember, ScannedFile, TreeScan } from "./scan-results.js";

export { emptyIndexSummary, type IndexSummary } from "./index-summary.js";

export type IndexPhase = "scanning" | "indexing" | "saving" | "complete";

/** One step of progress; `sylk index` and the TUI draw it. */
export interface IndexProgress {
  phase: IndexPhase;
  indexed: number;
  total: number;
  failed: number;
  elapsedMs: number;
}

export type IndexState = "missing" | "fresh" | "stale";

export interface FreshnessReport {
  state: IndexState;
  diff: ManifestDiff;
  scan: TreeScan;
  /** Directories holding an added, changed or removed file. */
  changedDirectories: string[];
  /** The manifest rows the scan was compared with: those of its changed and vanished directories. */
  manifest: ReadonlyMap<string, ManifestEntry>;
  durationMs: number;
}

/** Where the settings the stored directory states were walked with are kept. */
const WALK_RULES_META_KEY = "walk_rules";
/** When the last complete run ended: what `sylk status` shows. */
const LAST_REFRESH_META_KEY = "last_refresh";

export interface RunOptions {
  /**
   * More files to index than this, and the run changes nothing and returns `handedOff`: the caller has that work done
   * elsewhere (the session starts `sylk index`, so that what is indexed never passes through the process that draws).
   */
  handOffAbove?: number;
  /** Set by the session while the user waits on its search: the file workers stop between files (`IndexPause`). */
  pause?: IndexPause;
}

/**
 * What the indexer needs; how files are run (the pool, inline work, the linger) is `FileRunnerDeps`, and the sizes
 * at which a run is set up as large are `LargePassDeps`.
 */
export interface ProjectIndexerDeps extends FileRunnerDeps, LargePassDeps {
  db: SqliteDatabase;
  files: FileRepository;
  /** What the last complete walk saw of each directory. */
  directories: DirectoryStateRepository;
  /** Where a run with no complete run behind it stores what its walk saw (`first_walk_states`), for grep to list the tree by. */
  firstWalk?: DirectoryStateRepository;
  writer: IndexWriter;
  fullText: PersistentFullText;
  /**
   * The other full-text indexes (history, knowledge): the indexer does not
   * feed them, but a run is where a snapshot noted as damaged is rebuilt.
   */
  otherFullText?: readonly PersistentFullText[];
  /** See `ScanOptions.racyWindowMs`. */
  racyWindowMs?: number;
}

/**
 * The startup indexer: fresh → nothing to do; stale → only what changed; missing → everything, highest priority
 * first. Files are processed on the worker pool and committed here in batches.
 */
export class ProjectIndexer {
  private readonly processor: FileRunner;

  constructor(private readonly deps: ProjectIndexerDeps) {
    this.processor = new FileRunner(deps);
  }

  /** Stops the worker threads now (they also end on their own once a run is over, see `WORKER_LINGER_MS`). */
  close(): Promise<void> {
    return this.processor.close();
  }

  /** Whether the worker threads are running (from a run's start to the end of its linger, or a large pass's merge). */
  get workersRunning(): boolean {
    return this.processor.workersRunning;
  }

  /** When the last complete run ended (ISO 8601), or undefined before the first. */
  lastRefresh(): string | undefined {
    return getMeta(this.deps.db, LAST_REFRESH_META_KEY);
  }

  /**
   * Walks the project and compares what changed with the manifest. Only
   * directories whose listing differs from the last complete run's state
   * are compared file by file, so an unchanged tree costs about one `stat`
   * per file.
   */
  async checkFreshness(): Promise<FreshnessReport> {
    const started = performance.now();
    // Read as the walk reaches each directory, not all before it (docs/DESIGN-NOTES.md, "The stored states read as the walk reaches them").
    const previous = this.walkedWithTodaysRules() ? new DirectoryStatesInPathOrder(this.deps.db) : undefined;
    const scan = await scanTree(this.deps.root, this.deps.config, { previous, racyWindowMs: this.deps.racyWindowMs });
    // Without states every directory is changed, and rows of directories no walk reached must go too: compare with them all.
    const manifest = previous
      ? this.deps.files.manifestIn([...scan.changed.map((directory) => directory.path), ...scan.vanished])
      : this.deps.files.manifest();
    const diff = diffManifest(scan, manifest);
    const state: IndexState = this.deps.files.isEmpty() ? "missing" : isFresh(diff) ? "fresh" : "stale";
    const changedDirectories = [
      ...new Set(
        [...diff.added, ...diff.changed, ...diff.newlySkipped].map((file) => directoryOf(file.path)).concat(diff.deleted.map(directoryOf)),
      ),
    ];
    return { state, diff, scan, changedDirectories, manifest, durationMs: performance.now() - started };
  }

  /** The directories' states the last complete run stored, when it walked with today's settings. */
  storedDirectoryStates(): Map<string, StoredDirectoryState> | undefined {
    return this.walkedWithTodaysRules() ? this.deps.directories.all() : undefined;
  }

  /**
   * What the walk of a run with no complete run behind it stored (see
   * `firstWalkStates`), by a version that changes when another walk's replace
   * them; undefined when there are none walked with today's settings.
   */
  firstWalkVersion(): string | undefined {
    const stored = this.deps.firstWalk && getMeta(this.deps.db, FIRST_WALK_META_KEY);
    if (!stored) return undefined;
    const { rules, storedAt } = JSON.parse(stored) as { rules: string; storedAt: number };
    return rules === walkRulesKey(this.deps.config) ? String(storedAt) : undefined;
  }

  /** The directories' states the walk of a first index under way (or killed) stored: grep's listing until a run completes. */
  firstWalkStates(): Map<string, StoredDirectoryState> {
    return this.deps.firstWalk?.all() ?? new Map();
  }

  /** Whether the stored directory states were walked with today's settings (else none holds). */
  private walkedWithTodaysRules(): boolean {
    return getMeta(this.deps.db, WALK_RULES_META_KEY) === walkRulesKey(this.deps.config);
  }

  async *run(signal?: AbortSignal, options: RunOptions = {}): AsyncGenerator<IndexProgress, IndexSummary> {
    try {
      return yield* this.indexOnce(signal, options);
    } finally {
      this.processor.releaseLater();
    }
  }

  private async *indexOnce(signal: AbortSignal | undefined, options: RunOptions): AsyncGenerator<IndexProgress, IndexSummary> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    yield { phase: "scanning", indexed: 0, total: 0, failed: 0, elapsedMs: 0 };
    // A first index killed before its end left its secondary indexes dropped: this run's look-ups by file need them.
    ensureDeferredIndexes(this.deps.db);
    if (this.deps.files.isEmpty()) {
      if (options.handOffAbove !== undefined) {
        const handedOff = await this.handOffFirstIndex(options.handOffAbove, signal);
        if (handedOff) return { ...handedOff, durationMs: elapsed() };
      }
      // No index yet, and the work stays here: every file is work, so the threads start now and load while the tree is walked.
      this.processor.startWorkers();
    }
    this.deps.fullText.removeAbandonedBuilds();
    const plan = await this.plan(options);
    if (plan.handedOff) return { ...plan.summary, handedOff: true, durationMs: elapsed() };
    try {
      return yield* this.indexPlanned(plan, signal, options, started);
    } finally {
      // A full walk's work is a scratch file: removed however the run ends.
      plan.work.close();
    }
  }

  /** The files of `plan` indexed, the snapshot saved, and a complete run recorded. */
  private async *indexPlanned(
    plan: RunPlan,
    signal: AbortSignal | undefined,
    options: RunOptions,
    started: number,
  ): AsyncGenerator<IndexProgress, IndexSummary> {
    const elapsed = () => performance.now() - started;
    const { summary, work, manifest, directories } = plan;
    const total = work.remaining;
    // Set up by its size: a first index of a large tree, or one resumed, builds its index as the whole tree's.
    const pass = LargePass.begin(this.deps, { noRunCompleted: this.lastRefresh() === undefined, scanned: summary.scanned, total });
    let processed = 0;
    try {
      pass.prepareRows(plan.before);
      yield { phase: "indexing", indexed: 0, total, failed: 0, elapsedMs: elapsed() };
      for await (const batch of this.processor.processAll(work, signal, options.pause)) {
        await options.pause?.whenRunning(signal);
        const outcome = await this.deps.writer.commitBatch(batch, manifest, options.pause && { pause: options.pause, signal });
        pass.afterCommit();
        processed += batch.length;
        addOutcome(summary, outcome);
        yield { phase: "indexing", indexed: processed, total, failed: summary.failed, elapsedMs: elapsed() };
      }
      summary.interrupted = processed < total;

      yield { phase: "saving", indexed: processed, total, failed: summary.failed, elapsedMs: elapsed() };
      if (pass.closesWorkersBeforeCheckpoint) await this.processor.close();
      if (!plan.fresh || plan.before === "missing" || this.deps.fullText.damageNoted()) await this.deps.fullText.checkpoint();
      pass.finishRows();
    } finally {
      await pass.end();
    }
    summary.repairedFullText = await this.repairFullText();
    if (!summary.interrupted) {
      this.deps.db.transaction(() => {
        this.rememberDirectories(directories, summary.failures);
        this.forgetFirstWalk();
        setMeta(this.deps.db, LAST_REFRESH_META_KEY, new Date().toISOString());
      })();
    }
    summary.durationMs = elapsed();
    yield { phase: "complete", indexed: processed, total, failed: summary.failed, elapsedMs: summary.durationMs };
    return summary;
  }

  /**
   * Walks the tree, compares it with the manifest, records deletions and
   * newly skipped files, and keeps of the walk only what the run needs: its
   * work in a queue that lets go of each file once taken, and the states of
   * the directories to store at the end. A walk with no stored states to go
   * by is taken as it goes (`planFullWalk`); an incremental walk's report,
   * its per-file objects and the diff are dropped here, not held through the run.
   */
  private async plan(options: RunOptions): Promise<RunPlan> {
    if (!this.walkedWithTodaysRules()) {
      // Before any complete run the index cannot list the tree, and grep would walk it again: the walk's states are stored for it.
      const firstWalk = this.lastRefresh() === undefined ? this.deps.firstWalk : undefined;
      return planFullWalk({ ...this.deps, firstWalk }, options.handOffAbove);
    }
    const { state, diff, scan, manifest } = await this.checkFreshness();
    const directories: DirectoriesToRemember = {
      // Names joined, as stored: held until the run's end, they were a quarter of the main thread's heap at 248k files.
      changed: scan.changed.map((directory) => ({ path: directory.path, state: withJoinedNames(directory.state) })),
      restated: scan.restated.map((directory) => ({ path: directory.path, state: withJoinedNames(directory.state) })),
      vanished: scan.vanished,
    };
    const plan = { before: state, manifest, directories, ...settleWalk(this.deps.writer, state, scan.files, diff, options.handOffAbove) };
    if (plan.handedOff) return { ...plan, work: new FileWorkQueue([]) };
    return { ...plan, work: new FileWorkQueue([...diff.added, ...diff.changed].sort(byPriority)) };
  }

  /** A run completed: the stored directory states list the tree from now on. */
  private forgetFirstWalk(): void {
    if (!this.deps.firstWalk) return;
    this.deps.firstWalk.clear();
    deleteMeta(this.deps.db, FIRST_WALK_META_KEY);
  }

  /**
   * Whether this would be a first index of more than `limit` files: false at
   * once when an index exists (a refresh pays only this question); else the
   * files are counted up to the limit, as `handOffFirstIndex` counts them.
   */
  async firstIndexAbove(limit: number, signal?: AbortSignal): Promise<boolean> {
    if (!this.deps.files.isEmpty()) return false;
    return (await countFilesToIndex(this.deps.root, this.deps.config, limit, signal)) > limit;
  }

  /**
   * No index yet: every file is work, so counting files up to the limit
   * decides, without the walk of the whole tree and the manifest comparison
   * that the process taking the run over would repeat (≈ 0.5 s of a
   * 28k-file tree's first index).
   */
  private async handOffFirstIndex(limit: number, signal: AbortSignal | undefined): Promise<IndexSummary | undefined> {
    const files = await countFilesToIndex(this.deps.root, this.deps.config, limit, signal);
    if (files <= limit) return undefined;
    return { ...emptyIndexSummary("missing"), scanned: files, added: files, handedOff: true };
  }

  /**
   * After a complete run: what the walk saw of its changed directories, so
   * the next walk finds them unchanged, and new snapshots of unchanged ones
   * it had to list, so the next walk need not. A directory with a file that
   * failed is not remembered, so the file is tried again next time.
   */
  private rememberDirectories(directories: DirectoriesToRemember, failures: ReadonlyArray<{ path: string }>): void {
    const failed = new Set(failures.map((failure) => directoryOf(failure.path)));
    const states = [...directories.changed.filter((directory) => !failed.has(directory.path)), ...directories.restated];
    if (!this.walkedWithTodaysRules()) {
      // Walked with other settings: whatever was stored before does not hold.
      this.deps.directories.clear();
      setMeta(this.deps.db, WALK_RULES_META_KEY, walkRulesKey(this.deps.config));
    }
    if (directories.changedInFirstWalk && this.deps.firstWalk) this.deps.directories.saveAllOf(this.deps.firstWalk, failed);
    this.deps.directories.save(states, directories.vanished);
  }

  /**
   * Refreshes just these paths, as a file watcher reports them: changed files
   * are re-indexed, deleted or newly ignored ones leave the index. No walk of
   * the project; the full-text snapshot is left for the owner's checkpoint.
   */
  async refreshPaths(paths: readonly string[], signal?: AbortSignal): Promise<IndexSummary> {
    try {
      return await this.refreshOnce(paths, signal);
    } finally {
      this.processor.releaseLater();
    }
  }

  private async refreshOnce(paths: readonly string[], signal: AbortSignal | undefined): Promise<IndexSummary> {
    const started = performance.now();
    const classified = classifyPaths(this.deps.root, this.deps.config, paths);
    const manifest = this.deps.files.manifestFor([...classified.files, ...classified.skipped].map((file) => file.path));
    // The paths' files judged as a walk's are (to index, newly skipped, unchanged). The manifest holds the rows of
    // the paths found only, so the deleted are the paths gone that the index holds.
    const changed: ScannedFile[] = [];
    const differ = new ManifestDiffer(manifest, (file) => changed.push(file));
    differ.take(classified);
    const diff = { ...differ.finish(), deleted: classified.gone.filter((path) => this.deps.files.has(path)) };
    const { summary } = settleWalk(this.deps.writer, isFresh(diff) ? "fresh" : "stale", paths.length, diff, undefined);
    let processed = 0;
    for await (const batch of this.processor.processAll(new FileWorkQueue(changed.sort(byPriority)), signal)) {
      addOutcome(summary, await this.deps.writer.commitBatch(batch, manifest));
      processed += batch.length;
    }
    summary.interrupted = processed < changed.length;
    summary.repairedFullText = this.takeRepairs([this.deps.fullText]);
    summary.durationMs = performance.now() - started;
    return summary;
  }

  /**
   * Rebuilds the other full-text indexes whose snapshot was noted as
   * damaged, and reports every repair this process made (a load that met
   * damage repaired it too, see `PersistentFullText`).
   */
  private async repairFullText(): Promise<FullTextIndexDamage[]> {
    const others = this.deps.otherFullText ?? [];
    for (const fullText of others) if (fullText.damageNoted()) await fullText.checkpoint();
    return this.takeRepairs([this.deps.fullText, ...others]);
  }

  private takeRepairs(indexes: readonly PersistentFullText[]): FullTextIndexDamage[] {
    return indexes.flatMap((fullText) => fullText.takeRepairs().map((damage) => ({ index: fullText.collection, ...damage })));
  }
}
