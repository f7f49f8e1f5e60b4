import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type * as SqliteVec from "sqlite-vec";
import { applyMigrations } from "./migrations.js";
import { settleUnsyncedWrites } from "./unsynced-writes.js";

export type SqliteDatabase = Database.Database;

const require = createRequire(import.meta.url);
/**
 * Required, not imported: sqlite-vec ships both forms, and its CommonJS one
 * loads without the ES module loader's package resolution (~3 ms of a
 * one-shot search). better-sqlite3's JavaScript is bundled into the CLI
 * (scripts/bundle.mjs): imported as an external CommonJS package it started
 * Node's CommonJS export lexer (~10 ms), and required, its dozen files
 * still cost the loader's package-scope lookups (~4 ms). It finds its own
 * addon: one compiled on purpose, else the Node-API prebuild it ships for
 * the platform, which serves every supported Node without a rebuild.
 */
const sqliteVec = require("sqlite-vec") as typeof SqliteVec;

const PAGE_SIZE = 16_384;

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /**
   * Memory-map reads (default). A process that reads each page once (a
   * one-off search scans the 88 MB of vectors once) gains nothing from the
   * mapping and pays ~4 ms to unmap it when it closes.
   */
  mmap?: boolean;
  /** What opening did that the user should be told (a damaged database moved aside: `settleUnsyncedWrites`). */
  onNotice?: (notice: string) => void;
}

/**
 * A small SQLite file of Sylk's own beside the projects (no vectors, no
 * project schema): the caller keeps its schema. WAL, like the project's.
 */
export function openPlainDatabase(path: string): SqliteDatabase {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  ownerOnlyDatabaseFiles(path, { create: true });
  const db = new Database(path);
  db.pragma("busy_timeout = 10000");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  return db;
}

/**
 * Opens the project's one SQLite file with sqlite-vec loaded, in WAL mode so
 * that readers never block the writer, and brings its schema up to date.
 * Several processes may open it at once; writes are serialised by SQLite and
 * wait (busy timeout) rather than fail.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // A first index that wrote unsynced (`UnsyncedWrites`) and was killed, or went down with the machine.
    if (!options.readonly) {
      const settled = settleUnsyncedWrites(path, isWholeDatabase);
      if (settled.outcome === "moved-aside") options.onNotice?.(settled.notice);
    }
    ownerOnlyDatabaseFiles(path, { create: !options.readonly });
  }
  const db = new Database(path, { readonly: options.readonly ?? false });
  sqliteVec.load(db);
  db.pragma("busy_timeout = 10000");
  if (!options.readonly) {
    // Only takes effect on a new file (before WAL is on). Chunk rows run to a
    // few KB: on 4 KiB pages two rarely fit, and the file was a tenth larger.
    db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma("journal_mode = WAL");
    // WAL + NORMAL: durable across process crashes, fsync only at checkpoints.
    db.pragma("synchronous = NORMAL");
  }
  // A 64 MiB page cache and memory-mapped reads keep bulk indexing and k-NN scans off the syscall path.
  db.pragma("cache_size = -65536");
  if (options.mmap ?? true) db.pragma("mmap_size = 268435456");
  db.pragma("temp_store = MEMORY");
  db.pragma("foreign_keys = ON");
  if (!options.readonly) applyMigrations(db);
  return db;
}

/** Whether SQLite's `quick_check` finds the database at `path` whole (false when it cannot even open it). */
function isWholeDatabase(path: string): boolean {
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    sqliteVec.load(db);
    return db.pragma("quick_check", { simple: true }) === "ok";
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * Lets go of the pages a bulk read brought into the database's memory map.
 * Loading a session's in-memory indexes (the full-text snapshot, every chunk
 * vector) reads ~100 MB of a large project's file through the map, and those
 * pages stayed in the process's resident set for the rest of the session
 * although nothing read them again. Remapping the file drops them from this
 * process; the OS keeps them in its page cache, so a later read is still
 * served from memory. SQLite leaves the map alone while a statement holds a
 * page of it, so this is safe at any time and does nothing then.
 */
export function releaseMappedPages(db: SqliteDatabase): void {
  if (!db.open) return;
  const limit = Number(db.pragma("mmap_size", { simple: true }));
  if (!(limit > 0)) return;
  db.pragma("mmap_size = 0");
  db.pragma(`mmap_size = ${limit}`);
}

/**
 * `releaseMappedPages` once no bulk read has come for `idleMs`: the function
 * returned is what a bulk reader calls when it is done. A burst of reads (a
 * prompt's prefetch, a model's run of searches) keeps its pages mapped and
 * pays for none of them twice; an idle session holds only what it uses.
 */
export function releaseMappedPagesWhenIdle(db: SqliteDatabase, idleMs = 1_000): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      try {
        releaseMappedPages(db);
      } catch {
        // A statement still iterating holds the connection: the next bulk read tries again.
      }
    }, idleMs);
    timer.unref();
  };
}

/**
 * A database holds code and conversations: the user's alone. SQLite creates
 * a new file 0644 (less the umask) and gives its `-wal` and `-shm` the
 * database file's own mode, so the file is created 0600 before SQLite opens
 * it, and files an older version left readable by others are narrowed.
 */
function ownerOnlyDatabaseFiles(path: string, options: { create: boolean }): void {
  if (options.create) closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    let mode: number;
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(file, mode & 0o700);
    } catch {
      // Someone else's file (a shared, read-only database): SQLite reads it as before.
    }
  }
}

export function getMeta(db: SqliteDatabase, key: string): string | undefined {
  const row = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?").get(key);
  return row?.value;
}

export function setMeta(db: SqliteDatabase, key: string, value: string): void {
  db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}

export function deleteMeta(db: SqliteDatabase, key: string): void {
  db.prepare("DELETE FROM meta WHERE key = ?").run(key);
}
