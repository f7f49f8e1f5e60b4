import type { PersistentFullText } from "../search/persistent-full-text.js";
import type { SqliteDatabase } from "../store/database.js";
import { dropDeferredIndexes, ensureDeferredIndexes, ensureDeferredIndexesIfAble } from "../store/deferred-indexes.js";
import { UnsyncedWrites } from "../store/unsynced-writes.js";
import { boundHeapGrowth } from "./heap-growth.js";
import type { IndexState } from "./project-indexer.js";
import { collectTheDroppedWalk } from "./walk-collection.js";

/**
 * A first index of a tree of more files than this builds the full-text
 * snapshot a segment at a time on disk (`PersistentFullText.beginSegmentedBuild`)
 * rather than the whole index in memory: the index process's memory then
 * stops growing with the repository. So does a first index resumed after a
 * kill or an interrupt, whose index is the whole tree's too (in memory it
 * peaked at 745–753 MiB on a 28k-file tree and 1,504 MiB on a 250k one,
 * against 510–585 MiB built on disk). Smaller first
 * indexes stay in memory, where the session that ran them searches next.
 */
export const SEGMENTED_FULL_TEXT_ABOVE_FILES = 5_000;

/**
 * A pass with more files to index than this is large: a refresh that large (a branch switch) bounds the heaps' growth
 * as a first index does, and where the full-text index is not in memory closes the file workers before its checkpoint
 * merges the changes on disk (docs/DESIGN-NOTES.md, "Many changes to a saved index"). The session runs it apart.
 */
export const LARGE_PASS_ABOVE_FILES = 1_000;

/** What a run's set-up by size needs; the indexer's own deps extend it. */
export interface LargePassDeps {
  db: SqliteDatabase;
  fullText: PersistentFullText;
  /** A first index of a tree of more files than this builds its full-text snapshot on disk (`SEGMENTED_FULL_TEXT_ABOVE_FILES` by default). */
  segmentedFullTextAboveFiles?: number;
  /** A pass of more files to index than this is large (`LARGE_PASS_ABOVE_FILES` by default). */
  largePassAboveFiles?: number;
}

/** What a run is, as far as how it is set up goes. */
export interface PassShape {
  /** No run has completed: its index is the whole tree's (a first index, or one resumed after a kill or an interrupt). */
  noRunCompleted: boolean;
  /** Files the walk found. */
  scanned: number;
  /** Files to index. */
  total: number;
}

/**
 * How a run is set up and torn down by its size: a first index of a large
 * tree builds its full-text snapshot on disk (segmented), builds its
 * secondary indexes after its rows, and writes unsynced until its end; any
 * large pass bounds the heaps' growth and ends its file workers before its
 * merge. Each is undone by `end`, however the run ends.
 */
export class LargePass {
  private constructor(
    private readonly deps: LargePassDeps,
    /** The full-text snapshot is built on disk a segment at a time. */
    readonly segmented: boolean,
    /** A segmented run, or more files than `LARGE_PASS_ABOVE_FILES`. */
    readonly large: boolean,
    private readonly releaseHeapBound: (() => void) | undefined,
    private readonly unsynced: UnsyncedWrites | undefined,
  ) {}

  /** Sets the run up: `end` must follow, whichever way the run ends. */
  static begin(deps: LargePassDeps, shape: PassShape): LargePass {
    const segmented =
      shape.noRunCompleted &&
      shape.scanned > (deps.segmentedFullTextAboveFiles ?? SEGMENTED_FULL_TEXT_ABOVE_FILES) &&
      deps.fullText.beginSegmentedBuild();
    const large = segmented || shape.total > (deps.largePassAboveFiles ?? LARGE_PASS_ABOVE_FILES);
    // Held to the run's end, from before the dropped walk's collection so that the limit it sets follows it too.
    const releaseHeapBound = large ? boundHeapGrowth() : undefined;
    // An index built from empty is synced once, at its end (docs/DESIGN-NOTES.md, "A large first index's writes synced once").
    const unsynced = segmented ? UnsyncedWrites.begin(deps.db) : undefined;
    return new LargePass(deps, segmented, large, releaseHeapBound, unsynced);
  }

  /** Before the first commit (after `begin`, under the same `end`). */
  prepareRows(before: IndexState): void {
    if (!this.segmented) return;
    // Every row is new: the secondary indexes are built once after them (docs/DESIGN-NOTES.md, "A large first index builds…").
    // A resumed run replaces rows the killed one wrote, and finds them by file through those indexes: they stay.
    if (before === "missing") dropDeferredIndexes(this.deps.db);
    collectTheDroppedWalk();
  }

  /** A batch was committed. */
  afterCommit(): void {
    this.unsynced?.afterCommit();
  }

  /**
   * Whether the file workers end before the checkpoint: a large first index ends with its merge, and so does a large
   * refresh of an index not in memory; the idle workers' heaps and tree-sitter memory (≈ 300 MB) need not stay under it.
   */
  get closesWorkersBeforeCheckpoint(): boolean {
    return this.segmented || (this.large && !this.deps.fullText.isLoaded);
  }

  /** The run's files are committed and its snapshot saved: the secondary indexes dropped at its start are built. */
  finishRows(): void {
    if (this.segmented) ensureDeferredIndexes(this.deps.db);
  }

  /** Undoes the set-up, however the run ended. */
  async end(): Promise<void> {
    // A run that failed tries too; if that fails as well, the next run's start creates them.
    if (this.segmented) ensureDeferredIndexesIfAble(this.deps.db);
    this.releaseHeapBound?.();
    // A run that failed (a full disk, a damaged database) leaves no spilled segments beside the database to fill it further.
    if (this.segmented) this.deps.fullText.discardSegmentedBuild();
    await this.unsynced?.end();
  }
}
