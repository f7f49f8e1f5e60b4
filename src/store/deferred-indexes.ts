import type { SqliteDatabase } from "./database.js";

/**
 * The secondary indexes a large first index builds after its rows instead
 * of with every row (docs/DESIGN-NOTES.md, "A large first index builds its
 * secondary indexes after its rows"): each as the migrations create it,
 * name and definition. A first index commits files by priority, so each
 * of these takes keys at random places of its B-tree, and every commit
 * wrote most of its leaf pages to the WAL again. The `files(path)` unique
 * index is not among them: `ON CONFLICT(path)` needs it, and it is a
 * constraint of the table.
 */
export const DEFERRED_INDEXES: ReadonlyArray<{ name: string; sql: string }> = [
  { name: "idx_files_status", sql: "CREATE INDEX IF NOT EXISTS idx_files_status ON files(status)" },
  { name: "idx_files_directory", sql: "CREATE INDEX IF NOT EXISTS idx_files_directory ON files(directory)" },
  { name: "idx_chunks_file", sql: "CREATE INDEX IF NOT EXISTS idx_chunks_file ON chunks(file_id)" },
  { name: "idx_symbols_file", sql: "CREATE INDEX IF NOT EXISTS idx_symbols_file ON symbols(file_id)" },
  { name: "idx_symbols_name", sql: "CREATE INDEX IF NOT EXISTS idx_symbols_name ON symbols(name)" },
];

/** The deferred indexes the database lacks (a first index under way, or one killed before its end). */
export function missingDeferredIndexes(db: SqliteDatabase): string[] {
  const present = new Set(
    db
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('files', 'chunks', 'symbols')")
      .pluck()
      .all(),
  );
  return DEFERRED_INDEXES.filter((index) => !present.has(index.name)).map((index) => index.name);
}

/** Drops the deferred indexes, for a first index about to insert every row (see `DEFERRED_INDEXES`). */
export function dropDeferredIndexes(db: SqliteDatabase): void {
  db.transaction(() => {
    for (const { name } of DEFERRED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
  })();
}

/**
 * The page cache, in KiB, while the deferred indexes are built, which their
 * sorts then run within. The connection keeps its temporary tables in
 * memory (`temp_store = MEMORY`), and there SQLite sorts an index's keys
 * in memory whole: the sort of a 497k-file tree's symbol names set its
 * first index's peak. With temporary files it sorts runs of the cache's
 * size and merges them from a file, in less time too (docs/DESIGN-NOTES.md,
 * "A large first index builds its secondary indexes after its rows": *The
 * sorts' memory*).
 */
export const DEFERRED_INDEX_CACHE_KIB = 8192;

/**
 * Creates the deferred indexes the database lacks; returns their names.
 * When none is missing this is one read of `sqlite_master` and writes
 * nothing, so every run of the indexer can afford it.
 */
export function ensureDeferredIndexes(db: SqliteDatabase): string[] {
  const missing = missingDeferredIndexes(db);
  if (missing.length === 0) return missing;
  const cacheSize = db.pragma("cache_size", { simple: true }) as number;
  const tempStore = db.pragma("temp_store", { simple: true }) as number;
  // Setting `temp_store` drops the connection's temporary tables: one that holds some sorts as it is.
  const sortsInFiles = db.prepare("SELECT count(*) FROM temp.sqlite_master").pluck().get() === 0;
  db.pragma(`cache_size = -${DEFERRED_INDEX_CACHE_KIB}`);
  if (sortsInFiles) db.pragma("temp_store = FILE");
  try {
    db.transaction(() => {
      for (const { name, sql } of DEFERRED_INDEXES) if (missing.includes(name)) db.exec(sql);
    })();
  } finally {
    if (sortsInFiles) db.pragma(`temp_store = ${tempStore}`);
    db.pragma(`cache_size = ${cacheSize}`);
  }
  return missing;
}

/** `ensureDeferredIndexes` where a failure must not hide the error under way (a run that failed): the next run creates them. */
export function ensureDeferredIndexesIfAble(db: SqliteDatabase): void {
  try {
    ensureDeferredIndexes(db);
  } catch {
    // The next run of the indexer creates what is missing before it looks anything up.
  }
}
