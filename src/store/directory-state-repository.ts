import type { SqliteDatabase } from "./database.js";

/** What the last complete walk stored of a directory (see `DirectoryState` in the indexer). */
export interface StoredDirectoryState {
  listing: string;
  rules: string;
  leftOut: readonly string[];
  snapshot?: StoredDirectorySnapshot;
}

/** A directory's entry names and its own stat when they were read (see `DirectorySnapshot` in the indexer). */
export interface StoredDirectorySnapshot {
  files: readonly string[];
  directories: readonly string[];
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  recordedAtMs: number;
}

/** A `directory_states` row as `STATE_COLUMNS` reads it. */
export type DirectoryStateRow = [
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  number | null,
  number | null,
  number | null,
  number | null,
];

/**
 * Where directory states are kept: `directory_states`, what the last
 * complete walk saw; `first_walk_states`, what the walk of a run with no
 * complete run behind it saw, for grep to list the tree by while it runs.
 */
export type DirectoryStateTable = "directory_states" | "first_walk_states";

/**
 * SQL side of what a walk saw of each directory: its listing
 * and walk rules, what it left out, and its stat snapshot, so the next walk
 * can trust an unchanged directory without listing it again.
 */
export class DirectoryStateRepository {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly table: DirectoryStateTable = "directory_states",
  ) {}

  /** Every directory's stored state, keyed by path ('' is the root). */
  all(): Map<string, StoredDirectoryState> {
    const rows = this.db.prepare<[], DirectoryStateRow>(`SELECT ${STATE_COLUMNS} FROM ${this.table}`).raw().all();
    const states = new Map<string, StoredDirectoryState>();
    for (const row of rows) states.set(row[0], stateOfRow(row));
    return states;
  }

  /** Stores what a complete walk saw of these directories and forgets the ones it no longer reaches. */
  save(states: ReadonlyArray<{ path: string; state: StoredDirectoryState }>, vanished: readonly string[]): void {
    const upsert = this.db.prepare(
      `INSERT INTO ${this.table} (${STATE_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${REPLACE_ON_CONFLICT}`,
    );
    const remove = this.db.prepare(`DELETE FROM ${this.table} WHERE path = ?`);
    for (const { path, state } of states) {
      const snapshot = state.snapshot;
      upsert.run(
        path,
        state.listing,
        state.rules,
        JSON.stringify(state.leftOut),
        snapshot ? joinedNames(snapshot, "files") : null,
        snapshot ? joinedNames(snapshot, "directories") : null,
        snapshot?.ino ?? null,
        snapshot?.mtimeMs ?? null,
        snapshot?.ctimeMs ?? null,
        snapshot?.recordedAtMs ?? null,
      );
    }
    for (const path of vanished) remove.run(path);
  }

  /**
   * Stores every state `source` holds but those of the directories in
   * `except`, as `save` would, in one statement: a first index stores its
   * walk's states in `first_walk_states` as it starts, and reads them back
   * here at its end rather than holding them in memory through the run.
   */
  saveAllOf(source: DirectoryStateRepository, except: ReadonlySet<string>): void {
    this.db
      .prepare(
        `INSERT INTO ${this.table} (${STATE_COLUMNS})
         SELECT ${STATE_COLUMNS} FROM ${source.table} WHERE path NOT IN (SELECT value FROM json_each(?)) ${REPLACE_ON_CONFLICT}`,
      )
      .run(JSON.stringify([...except]));
  }

  /** Forgets every directory state: the next walk compares every directory with the manifest. */
  clear(): void {
    this.db.prepare(`DELETE FROM ${this.table}`).run();
  }
}

/** A state stored again for a path replaces the row it had. */
const REPLACE_ON_CONFLICT = `ON CONFLICT(path) DO UPDATE SET listing = excluded.listing, rules = excluded.rules, left_out = excluded.left_out,
  files = excluded.files, directories = excluded.directories, ino = excluded.ino, mtime_ms = excluded.mtime_ms,
  ctime_ms = excluded.ctime_ms, recorded_at_ms = excluded.recorded_at_ms`;

/** The columns of a `DirectoryStateRow`, in its order. */
export const STATE_COLUMNS = "path, listing, rules, left_out, files, directories, ino, mtime_ms, ctime_ms, recorded_at_ms";

/** The state a row holds (its path is the row's first column). */
export function stateOfRow(row: DirectoryStateRow): StoredDirectoryState {
  const [, listing, rules, leftOut, files, directories, ino, mtimeMs, ctimeMs, recordedAtMs] = row;
  const state: StoredDirectoryState = { listing, rules, leftOut: leftOut === "[]" ? [] : (JSON.parse(leftOut) as string[]) };
  if (files !== null && directories !== null && ino !== null && mtimeMs !== null && ctimeMs !== null && recordedAtMs !== null) {
    state.snapshot = new JoinedNamesSnapshot(files, directories, ino, mtimeMs, ctimeMs, recordedAtMs);
  }
  return state;
}

/** No names: one array for every state that left nothing out. */
const NO_NAMES: readonly string[] = Object.freeze([]);

/**
 * The same state with its snapshot's names joined, as a stored state holds
 * them. A run keeps the states of the directories it walked until it stores
 * them at its end; with an array and a string per name they were ≈ 1.1 KB a
 * directory of the main thread's heap (≈ 30 MB at 248k files, held through
 * the whole run), joined ≈ 0.5 KB.
 */
export function withJoinedNames(state: StoredDirectoryState): StoredDirectoryState {
  const { listing, rules, leftOut, snapshot } = state;
  const joined: StoredDirectoryState = { listing, rules, leftOut: leftOut.length === 0 ? NO_NAMES : leftOut };
  if (snapshot) {
    joined.snapshot =
      snapshot instanceof JoinedNamesSnapshot
        ? snapshot
        : new JoinedNamesSnapshot(
            snapshot.files.join("/"),
            snapshot.directories.join("/"),
            snapshot.ino,
            snapshot.mtimeMs,
            snapshot.ctimeMs,
            snapshot.recordedAtMs,
          );
  }
  return joined;
}

/** A snapshot's names as a row stores them. */
function joinedNames(snapshot: StoredDirectorySnapshot, kind: "files" | "directories"): string {
  if (snapshot instanceof JoinedNamesSnapshot) return kind === "files" ? snapshot.joinedFiles : snapshot.joinedDirectories;
  return snapshot[kind].join("/");
}

/**
 * A stored snapshot that keeps its names joined as they were read and
 * splits them each time they are asked for. A fresh check reads every
 * directory's state before its walk: one string a directory, rather than
 * one a name (~280k on a 250k-file tree), is then what the garbage
 * collector copies and promotes while the walk runs, and each directory's
 * names, split when it is visited, are garbage soon after.
 */
class JoinedNamesSnapshot implements StoredDirectorySnapshot {
  constructor(
    readonly joinedFiles: string,
    readonly joinedDirectories: string,
    readonly ino: number,
    readonly mtimeMs: number,
    readonly ctimeMs: number,
    readonly recordedAtMs: number,
  ) {}

  get files(): readonly string[] {
    return splitNames(this.joinedFiles);
  }

  get directories(): readonly string[] {
    return splitNames(this.joinedDirectories);
  }
}

/** Names stored joined by '/', which no file name can hold. */
function splitNames(joined: string): string[] {
  return joined === "" ? [] : joined.split("/");
}
