import type { UnindexableReason } from "./directory-listing.js";
import type { DirectoryState } from "./directory-state.js";

/** A file the scanner found and the indexer should consider. */
export interface ScannedFile {
  /** Relative to the project root, '/'-separated. */
  path: string;
  size: number;
  mtimeMs: number;
  priority: number;
}

/** Ruled out by size or name, or never readable as a project file (see `UnindexableReason`). */
export type SkipReason = "too-large" | "secret" | UnindexableReason;

export interface SkippedFile {
  path: string;
  size: number;
  mtimeMs: number;
  reason: SkipReason;
}

export interface ScanResult {
  files: ScannedFile[];
  /** Files seen but never read: their names or sizes rule them out. */
  skipped: SkippedFile[];
}

/** A directory whose listing or rules differ from what the last run stored (or that it never saw). */
export interface ChangedDirectory extends ScanResult {
  /** Relative to the root, '' for the root itself. */
  path: string;
  /** What to store for it once its files are indexed. */
  state: DirectoryState;
}

export interface TreeScan {
  changed: ChangedDirectory[];
  /**
   * Unchanged directories that had to be listed all the same (no snapshot
   * yet, or one too recent or too old to trust): their states with a new
   * snapshot, to store so that the next walk need not list them.
   */
  restated: Array<{ path: string; state: DirectoryState }>;
  /** Directories of the previous states this walk did not reach: removed, or excluded or ignored now. */
  vanished: string[];
  directories: number;
  /** Files taken (indexed or skipped by name or size) in every directory walked. */
  files: number;
  /** Directories read with `readdir`; the others' names came from their snapshots. */
  listed: number;
  /** The walk stopped early (`ScanOptions.stopAfterFiles`): the tree holds more than this scan saw. */
  partial: boolean;
}

/** What a complete run stores of its walk's directories: all a run keeps of the walk while it indexes. */
export interface DirectoriesToRemember {
  changed: Array<{ path: string; state: DirectoryState }>;
  /** The changed directories' states are not in `changed` but stored in `first_walk_states`, where a first index's walk put them for grep. */
  changedInFirstWalk?: boolean;
  restated: TreeScan["restated"];
  vanished: string[];
}
