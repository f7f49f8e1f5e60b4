import { closeSync, openSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { isRunning } from "../project/process-identity.js";

/** A file the walk found to index, as the run hands it to a worker. */
export interface WalkWorkRow {
  path: string;
  size: number;
  mtimeMs: number;
  priority: number;
}

/** Rows inserted in one transaction while the walk goes on. */
const ROWS_PER_TRANSACTION = 4096;
/** The scratch connection's page cache (KiB); its sort spills to temporary files beyond about this much. */
const CACHE_KIB = 2048;
const FILE_PREFIX = "walk-work-";

let opened = 0;

/**
 * The files a full walk finds to index, written to a scratch SQLite
 * database of their own as the walk meets them, and read back in
 * `byPriority` order (priority, higher first, then path as JavaScript
 * compares strings) through one sorted statement. The main thread then
 * holds a row of the work, not the whole tree's (docs/DESIGN-NOTES.md, "A
 * full walk's work read back from a file of its own"). The database's text
 * is UTF-16BE, so SQLite's binary collation (a `memcmp`) orders paths by
 * UTF-16 code units, as `<` does.
 */
export class WalkWorkFile {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, number, number, number]>;
  private inTransaction = 0;
  private rows = 0;
  private reading: IterableIterator<unknown[]> | undefined;
  private closed = false;

  private constructor(private readonly path: string | undefined) {
    this.db = new Database(path ?? ":memory:");
    try {
      this.db.pragma("encoding = 'UTF-16be'");
      // OFF is refused by this build of SQLite; a transaction's rollback journal holds the pages it changed that existed before it, few when rows are appended.
      this.db.pragma("journal_mode = MEMORY");
      this.db.pragma("synchronous = OFF");
      this.db.pragma("locking_mode = EXCLUSIVE");
      this.db.pragma(`cache_size = -${CACHE_KIB}`);
      this.db.pragma(`temp_store = ${path === undefined ? "MEMORY" : "FILE"}`);
      this.db.exec("CREATE TABLE work (path TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms REAL NOT NULL, priority REAL NOT NULL)");
      this.insert = this.db.prepare("INSERT INTO work (path, size, mtime_ms, priority) VALUES (?, ?, ?, ?)");
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /**
   * A scratch file in `directory` (the index database's), created owner-only,
   * after removing those of processes that are gone; in memory when
   * `directory` is undefined (an index database in memory).
   */
  static open(directory: string | undefined): WalkWorkFile {
    if (directory === undefined) return new WalkWorkFile(undefined);
    WalkWorkFile.removeAbandoned(directory);
    const path = join(directory, `${FILE_PREFIX}${process.pid}-${opened++}.db`);
    closeSync(openSync(path, "wx", 0o600));
    return new WalkWorkFile(path);
  }

  /** A scratch file beside `db`'s file (see `open`), or in memory when `db` is. */
  static besideDatabase(db: Database.Database): WalkWorkFile {
    return WalkWorkFile.open(db.memory ? undefined : dirname(resolve(db.name)));
  }

  /** Removes the scratch files of processes that ended without removing theirs (killed, or crashed). */
  static removeAbandoned(directory: string): void {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return; // nothing there yet
    }
    for (const name of names) {
      if (!name.startsWith(FILE_PREFIX)) continue;
      const pid = Number(name.slice(FILE_PREFIX.length).split("-")[0]);
      if (pid !== process.pid && !isRunning(pid)) rmSync(join(directory, name), { force: true });
    }
  }

  /** Files added so far. */
  get count(): number {
    return this.rows;
  }

  add(row: WalkWorkRow): void {
    if (this.inTransaction === 0) this.db.exec("BEGIN");
    this.insert.run(row.path, row.size, row.mtimeMs, row.priority);
    this.rows++;
    if (++this.inTransaction === ROWS_PER_TRANSACTION) this.commit();
  }

  /** The next file in `byPriority` order, or undefined once all are read; the first call sorts them (no `add` after it). */
  next(): WalkWorkRow | undefined {
    if (this.closed) return undefined;
    if (!this.reading) {
      this.commit();
      this.reading = this.db
        .prepare("SELECT path, size, mtime_ms, priority FROM work ORDER BY priority DESC, path")
        .raw()
        .iterate() as IterableIterator<unknown[]>;
    }
    const step = this.reading.next();
    if (step.done) return undefined;
    const [path, size, mtimeMs, priority] = step.value as [string, number, number, number];
    return { path, size, mtimeMs, priority };
  }

  /** Closes the database and removes its file; reading afterwards gives nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.reading?.return?.();
      if (this.db.open) this.db.close();
    } finally {
      if (this.path !== undefined) rmSync(this.path, { force: true });
    }
  }

  private commit(): void {
    if (this.inTransaction === 0) return;
    this.inTransaction = 0;
    this.db.exec("COMMIT");
  }
}
