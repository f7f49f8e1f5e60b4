import { deleteMeta, setMeta, type SqliteDatabase } from "../store/database.js";
import type { DirectoryStateRepository, StoredDirectoryState } from "../store/directory-state-repository.js";
import { withJoinedNames } from "../store/directory-state-repository.js";
import type { FileRepository, ManifestEntry } from "../store/file-repository.js";
import { WalkWorkFile } from "../store/walk-work-file.js";
import type { IndexConfig } from "../config/schema.js";
import { type FileWork, FileWorkQueue } from "./file-work-queue.js";
import { emptyIndexSummary, unindexableOf, type IndexSummary } from "./index-summary.js";
import type { IndexWriter } from "./index-writer.js";
import { type DiffWithoutWork, isFresh, type ManifestDiff, ManifestDiffer, toIndexCounts } from "./manifest-diff.js";
import type { IndexState } from "./project-indexer.js";
import type { DirectoriesToRemember } from "./scan-results.js";
import { scanTree, walkRulesKey } from "./scanner.js";
import { StoredFileWork } from "./stored-file-work.js";
import { WalkHeapBound } from "./walk-collection.js";

/** The first walk's states (`first_walk_states`): the settings they were walked with, and when they were stored. */
export const FIRST_WALK_META_KEY = "first_walk";

/** Directory states stored in one transaction as the walk finds them. */
const STATES_PER_TRANSACTION = 1024;

/** What a run keeps of its walk (see `ProjectIndexer.plan`). */
export interface RunPlan {
  before: IndexState;
  summary: IndexSummary;
  /** What is left to index; the run closes it when it ends. */
  work: FileWork;
  manifest: ReadonlyMap<string, ManifestEntry>;
  directories: DirectoriesToRemember;
  /** Nothing was added, changed, deleted or newly skipped. */
  fresh: boolean;
  /** More work than `RunOptions.handOffAbove`: nothing was done. */
  handedOff: boolean;
}

/**
 * What a run's walk decides, a full walk's or an incremental one's: its
 * summary and, unless more files are to be indexed than `handOffAbove` (the
 * run is handed off and records nothing), the deleted and newly skipped
 * files recorded.
 */
export function settleWalk(
  writer: IndexWriter,
  before: IndexState,
  scanned: number,
  diff: ManifestDiff | DiffWithoutWork,
  handOffAbove: number | undefined,
): Pick<RunPlan, "summary" | "fresh" | "handedOff"> {
  const { added, changed } = toIndexCounts(diff);
  const summary: IndexSummary = {
    ...emptyIndexSummary(before),
    scanned,
    added,
    changed,
    deleted: diff.deleted.length,
    unindexable: unindexableOf(diff.newlySkipped),
  };
  const fresh = isFresh(diff);
  if (handOffAbove !== undefined && added + changed > handOffAbove) return { summary, fresh, handedOff: true };
  if (diff.deleted.length > 0) writer.deleteFiles(diff.deleted);
  if (diff.newlySkipped.length > 0) writer.recordSkipped(diff.newlySkipped);
  summary.skipped += diff.newlySkipped.length;
  return { summary, fresh, handedOff: false };
}

export interface FullWalkDeps {
  db: SqliteDatabase;
  root: string;
  config: IndexConfig;
  files: FileRepository;
  writer: IndexWriter;
  racyWindowMs?: number;
  /**
   * Where the walk stores its directories' states as it finds them, for grep
   * to list the tree by while the run goes on (a run with no complete run
   * behind it); without it they are held to the run's end.
   */
  firstWalk?: DirectoryStateRepository;
}

/**
 * The plan of a run whose walk has no stored directory states to go by (a
 * first index, one resumed after a kill, one after the walk's settings
 * changed): every directory is walked and compared with the whole manifest.
 * The walk is taken a directory at a time (docs/DESIGN-NOTES.md, "A full
 * walk taken as it goes"): each file to index is written to a scratch
 * file (`WalkWorkFile`), each directory's state is stored in
 * `first_walk_states` (or held joined), and the directory's objects are
 * dropped, so no per-file object lives to the walk's end. The run reads the
 * work back sorted as `ProjectIndexer.plan` sorts an incremental run's
 * (`StoredFileWork`, docs/DESIGN-NOTES.md, "A full walk's work read back
 * from a file of its own").
 */
export async function planFullWalk(deps: FullWalkDeps, handOffAbove: number | undefined): Promise<RunPlan> {
  const work = WalkWorkFile.besideDatabase(deps.db);
  try {
    return await planInto(work, deps, handOffAbove);
  } catch (error) {
    work.close();
    throw error;
  }
}

async function planInto(work: WalkWorkFile, deps: FullWalkDeps, handOffAbove: number | undefined): Promise<RunPlan> {
  const missing = deps.files.isEmpty();
  const manifest = missing ? new Map<string, ManifestEntry>() : deps.files.manifest();
  const differ = new ManifestDiffer(manifest, (file) => work.add(file));
  const states = deps.firstWalk ? new FirstWalkStates(deps.db, deps.firstWalk) : undefined;
  const held: DirectoriesToRemember["changed"] = [];
  const heapBound = new WalkHeapBound();
  const scan = await scanTree(deps.root, deps.config, {
    ...(deps.racyWindowMs === undefined ? {} : { racyWindowMs: deps.racyWindowMs }),
    onChangedDirectory: (directory) => {
      differ.take(directory);
      if (states) states.add(directory.path, directory.state);
      else held.push({ path: directory.path, state: withJoinedNames(directory.state) });
      heapBound.noteDirectory();
    },
  });
  const diff = differ.finish();
  const before: IndexState = missing ? "missing" : isFresh(diff) ? "fresh" : "stale";
  const directories: DirectoriesToRemember = { changed: held, restated: [], vanished: [] };
  const plan = { before, manifest, directories, ...settleWalk(deps.writer, before, scan.files, diff, handOffAbove) };
  // The states stored so far carry no version: grep does not list by them, and the run taking over replaces them.
  if (plan.handedOff) {
    work.close();
    return { ...plan, work: new FileWorkQueue([]) };
  }
  if (states) {
    states.publish(walkRulesKey(deps.config));
    directories.changedInFirstWalk = true;
  }
  return { ...plan, work: new StoredFileWork(work) };
}

/**
 * A walk's directory states stored in `first_walk_states` as it finds them,
 * a transaction for each `STATES_PER_TRANSACTION`. The table is emptied and
 * its version removed before the first: grep lists the tree by these rows
 * only once `publish` has given them a version, at the walk's end, so a
 * walk killed half-way leaves rows that no one reads and the next run
 * replaces.
 */
class FirstWalkStates {
  private batch: Array<{ path: string; state: StoredDirectoryState }> = [];

  constructor(
    private readonly db: SqliteDatabase,
    private readonly table: DirectoryStateRepository,
  ) {
    db.transaction(() => {
      table.clear();
      deleteMeta(db, FIRST_WALK_META_KEY);
    })();
  }

  add(path: string, state: StoredDirectoryState): void {
    this.batch.push({ path, state });
    if (this.batch.length >= STATES_PER_TRANSACTION) this.flush();
  }

  /** The last states stored, and the version grep reads them by (one row, read at every search while the run goes on). */
  publish(rulesKey: string): void {
    this.db.transaction(() => {
      this.flush();
      setMeta(this.db, FIRST_WALK_META_KEY, JSON.stringify({ rules: rulesKey, storedAt: Date.now() }));
    })();
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length > 0) this.db.transaction(() => this.table.save(batch, []))();
  }
}
