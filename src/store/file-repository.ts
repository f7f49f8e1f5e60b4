import type { SqliteDatabase } from "./database.js";
import type { ChunkRecord, FileRecord, FileStatus, ManifestEntry, SymbolRecord, StoredChunk, IndexedSymbol } from "./file-records.js";

export type { ChunkRecord, FileRecord, FileStatus, IndexedSymbol, ManifestEntry, StoredChunk, SymbolRecord } from "./file-records.js";

/** The parent directory of a project path ('' for the root), as the manifest's `directory` column holds it. */
export function directoryOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

/** More changed directories than this: one read of the whole manifest beats a query per directory. */
const MANIFEST_BY_DIRECTORY_LIMIT = 256;

/** SQL side of the code index: the files manifest, chunks and symbols. */
export class FileRepository {
  private readonly upsertStatement;
  private readonly insertNewStatement;
  private readonly chunkIdsStatement;
  private readonly deleteChunksStatement;
  private readonly insertChunkStatement;
  private readonly deleteSymbolsStatement;
  private readonly insertSymbolStatement;

  /** Writes to `files` through this repository (upserts and deletes): with `data_version`, the manifest's version. */
  private writes = 0;

  constructor(private readonly db: SqliteDatabase) {
    this.upsertStatement = db.prepare(
      `INSERT INTO files (path, directory, size, mtime_ms, content_hash, language, status, reason, line_count, description,
         priority, indexed_at)
       VALUES (@path, @directory, @size, @mtimeMs, @contentHash, @language, @status, @reason, @lineCount, @description,
         @priority, @indexedAt)
       ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
         content_hash = excluded.content_hash, language = excluded.language, status = excluded.status,
         reason = excluded.reason, line_count = excluded.line_count, description = excluded.description, priority = excluded.priority,
         indexed_at = excluded.indexed_at
       RETURNING id`,
    );
    this.insertNewStatement = db.prepare(
      `INSERT INTO files (path, directory, size, mtime_ms, content_hash, language, status, reason, line_count, description,
         priority, indexed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO NOTHING`,
    );
    this.chunkIdsStatement = db.prepare("SELECT id FROM chunks WHERE file_id = ?").pluck();
    this.deleteChunksStatement = db.prepare("DELETE FROM chunks WHERE file_id = ?");
    this.insertChunkStatement = db.prepare(
      `INSERT INTO chunks (file_id, ordinal, start_line, end_line, kind, symbols, content, token_count, terms, term_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.deleteSymbolsStatement = db.prepare("DELETE FROM symbols WHERE file_id = ?");
    this.insertSymbolStatement = db.prepare("INSERT INTO symbols (file_id, name, kind, start_line, end_line) VALUES (?, ?, ?, ?, ?)");
  }

  manifest(): Map<string, ManifestEntry> {
    const rows = this.db
      .prepare<[], ManifestEntry>("SELECT id, path, size, mtime_ms AS mtimeMs, content_hash AS contentHash, status FROM files")
      .all();
    return new Map(rows.map((row) => [row.path, row]));
  }

  /** Manifest rows of just these paths. */
  manifestFor(paths: readonly string[]): Map<string, ManifestEntry> {
    if (paths.length === 0) return new Map();
    const rows = this.db
      .prepare<[string], ManifestEntry>(
        `SELECT id, path, size, mtime_ms AS mtimeMs, content_hash AS contentHash, status FROM files
         WHERE path IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(paths));
    return new Map(rows.map((row) => [row.path, row]));
  }

  /**
   * Manifest rows of the files below a directory ('' is the whole project),
   * through the path index, as a list: a search goes through them once, and
   * building a map of 28k rows cost a third of reading them.
   */
  manifestUnder(directory: string): ManifestEntry[] {
    const columns = "SELECT id, path, size, mtime_ms AS mtimeMs, content_hash AS contentHash, status FROM files";
    if (directory === "") return this.db.prepare<[], ManifestEntry>(columns).all();
    // Every path below `dir/` sorts from `dir/` up to `dir0` ('0' is the character after '/').
    return this.db
      .prepare<[string, string], ManifestEntry>(`${columns} WHERE path >= ? AND path < ?`)
      .all(`${directory}/`, `${directory}0`);
  }

  /**
   * Manifest rows of the files directly in these directories ('' is the
   * root): what a walk compares its changed directories with.
   */
  manifestIn(directories: readonly string[]): Map<string, ManifestEntry> {
    if (directories.length === 0) return new Map();
    if (directories.length > MANIFEST_BY_DIRECTORY_LIMIT) {
      const wanted = new Set(directories);
      return new Map([...this.manifest()].filter(([path]) => wanted.has(directoryOf(path))));
    }
    const rows = this.db
      .prepare<[string], ManifestEntry>(
        `SELECT id, path, size, mtime_ms AS mtimeMs, content_hash AS contentHash, status FROM files
         WHERE directory IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(directories));
    return new Map(rows.map((row) => [row.path, row]));
  }

  /** Indexed files by language, most first (files of no known language left out). */
  languageCounts(): Array<{ language: string; files: number }> {
    return this.db
      .prepare(
        "SELECT language, COUNT(*) AS files FROM files WHERE status = 'indexed' AND language IS NOT NULL GROUP BY language ORDER BY files DESC, language",
      )
      .all() as Array<{ language: string; files: number }>;
  }

  /** Every indexed file's path, for completing @-mentions. */
  indexedPaths(): string[] {
    return this.db.prepare<[], string>("SELECT path FROM files WHERE status = 'indexed' ORDER BY path").pluck().all();
  }

  /** Definitions whose name starts with `prefix` (case-sensitive, by the name index), with where they are. */
  symbolsStartingWith(
    prefix: string,
    limit: number,
  ): Array<{ name: string; kind: string; path: string; startLine: number; endLine: number }> {
    return this.db
      .prepare<[string, string, number], { name: string; kind: string; path: string; startLine: number; endLine: number }>(
        `SELECT s.name AS name, s.kind AS kind, f.path AS path, s.start_line AS startLine, s.end_line AS endLine
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name >= ? AND s.name < ? ORDER BY length(s.name), s.name LIMIT ?`,
      )
      .all(prefix, `${prefix}\uffff`, limit);
  }

  /** Definitions with exactly these names (case-sensitive), with where they are. */
  symbolsNamed(names: readonly string[]): IndexedSymbol[] {
    if (names.length === 0) return [];
    return this.db
      .prepare<[string], IndexedSymbol>(
        `SELECT s.name AS name, s.kind AS kind, f.path AS path, s.start_line AS startLine, s.end_line AS endLine
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name IN (SELECT value FROM json_each(?)) ORDER BY f.path, s.start_line`,
      )
      .all(JSON.stringify(names));
  }

  /** Every definition of one file, by start line. */
  symbolsIn(path: string): IndexedSymbol[] {
    return this.db
      .prepare<[string], IndexedSymbol>(
        `SELECT s.name AS name, s.kind AS kind, f.path AS path, s.start_line AS startLine, s.end_line AS endLine
         FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE f.path = ? ORDER BY s.start_line, s.end_line DESC`,
      )
      .all(path);
  }

  /** Whether no file was ever recorded: the project has no index yet. */
  isEmpty(): boolean {
    return this.db.prepare("SELECT 1 FROM files LIMIT 1").get() === undefined;
  }

  has(path: string): boolean {
    return this.db.prepare("SELECT 1 FROM files WHERE path = ?").get(path) !== undefined;
  }

  /**
   * Changes whenever the manifest may have: a row written through this
   * repository (every writer of `files` in a process shares one), or a
   * commit by another connection (the session's indexing process). What a
   * caller read of the manifest holds until it changes. Cheap to poll.
   */
  manifestVersion(): string {
    return `${this.db.pragma("data_version", { simple: true })}:${this.writes}`;
  }

  /** Inserts or updates the file's manifest row; returns its id. */
  upsertFile(file: FileRecord, indexedAt: number = Date.now()): number {
    this.writes++;
    const row = this.upsertStatement.get({ ...file, directory: directoryOf(file.path), indexedAt }) as { id: number };
    return row.id;
  }

  /**
   * Inserts the manifest row of a file that has none, and returns its id;
   * undefined when the path has a row after all (another writer added it
   * since the caller read the manifest: `upsertFile` it then). A new row has
   * no chunks, symbols or sketch: theirs go with a deleted file by cascade,
   * so an id used again starts empty, and a caller may insert them without
   * looking for old ones (most of a first index's writes of a file did).
   * The id is the insert's row id, not a `RETURNING` row: SQLite gathers
   * returned rows in a table of their own first, which doubled the cost of
   * a first index's 27,870 manifest rows on biome (0.29–0.34 s against
   * 0.57–0.69 s).
   */
  insertNewFile(file: FileRecord, indexedAt: number = Date.now()): number | undefined {
    this.writes++;
    const inserted = this.insertNewStatement.run(
      file.path,
      directoryOf(file.path),
      file.size,
      file.mtimeMs,
      file.contentHash,
      file.language,
      file.status,
      file.reason,
      file.lineCount,
      file.description,
      file.priority,
      indexedAt,
    );
    // Nothing inserted: the path has a row (`ON CONFLICT DO NOTHING`), and the last row id is another statement's.
    return inserted.changes === 0 ? undefined : Number(inserted.lastInsertRowid);
  }

  chunkIdsOf(fileId: number): number[] {
    return this.chunkIdsStatement.all(fileId) as number[];
  }

  /** Replaces the file's chunks; returns the ids of the new chunks in order. */
  replaceChunks(fileId: number, chunks: readonly ChunkRecord[]): number[] {
    this.deleteChunksStatement.run(fileId);
    return this.insertChunks(fileId, chunks);
  }

  /** Adds chunks to a file that has none (see `insertNewFile`); returns their ids in order. */
  insertChunks(fileId: number, chunks: readonly ChunkRecord[]): number[] {
    return chunks.map((chunk) =>
      Number(
        this.insertChunkStatement.run(
          fileId,
          chunk.ordinal,
          chunk.startLine,
          chunk.endLine,
          chunk.kind,
          JSON.stringify(chunk.symbols),
          chunk.content,
          chunk.tokenCount,
          chunk.terms,
          chunk.termCount,
        ).lastInsertRowid,
      ),
    );
  }

  replaceSymbols(fileId: number, symbols: readonly SymbolRecord[]): void {
    this.deleteSymbolsStatement.run(fileId);
    this.insertSymbols(fileId, symbols);
  }

  /** Adds symbols to a file that has none (see `insertNewFile`). */
  insertSymbols(fileId: number, symbols: readonly SymbolRecord[]): void {
    for (const symbol of symbols) {
      this.insertSymbolStatement.run(fileId, symbol.name, symbol.kind, symbol.startLine, symbol.endLine);
    }
  }

  /** Removes a file and (by cascade) its chunks and symbols; returns the removed chunk ids. */
  deleteFile(path: string): number[] {
    const row = this.db.prepare<[string], { id: number }>("SELECT id FROM files WHERE path = ?").get(path);
    if (!row) return [];
    const chunkIds = this.chunkIdsOf(row.id);
    this.writes++;
    this.db.prepare("DELETE FROM files WHERE id = ?").run(row.id);
    return chunkIds;
  }

  getChunks(ids: readonly number[]): StoredChunk[] {
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare<[string], Omit<StoredChunk, "symbols"> & { symbols: string }>(
        `SELECT c.id, c.file_id AS fileId, f.path, f.language, c.start_line AS startLine, c.end_line AS endLine,
                c.kind, c.symbols, c.content, c.token_count AS tokenCount, f.line_count AS fileLineCount,
                f.description AS fileDescription
         FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids));
    const byId = new Map(rows.map((row) => [row.id, { ...row, symbols: JSON.parse(row.symbols) as string[] }]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** chunk id → file id, for the given chunks that still exist. */
  fileIdsOf(chunkIds: readonly number[]): Map<number, number> {
    if (chunkIds.length === 0) return new Map();
    const rows = this.db
      .prepare<[string], { id: number; fileId: number }>(
        "SELECT id, file_id AS fileId FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
      )
      .all(JSON.stringify(chunkIds));
    return new Map(rows.map((row) => [row.id, row.fileId]));
  }

  /**
   * Every chunk's file, as [chunk id, file id]: read from the index on
   * chunks' files alone (it holds both), never from the table's rows, which
   * carry each chunk's text.
   */
  allChunkFileIds(): Array<[number, number]> {
    return this.db.prepare<[], [number, number]>("SELECT id, file_id FROM chunks INDEXED BY idx_chunks_file").raw().all();
  }

  /** Every chunk's file, as [chunk id, file id, path, language]. */
  *chunkFiles(): Generator<[number, number, string, string | null]> {
    const rows = this.db
      .prepare<[], [number, number, string, string | null]>(
        "SELECT c.id, c.file_id, f.path, f.language FROM chunks c JOIN files f ON f.id = c.file_id",
      )
      .raw()
      .iterate();
    yield* rows;
  }

  /** The file of each of the given chunks that still exist: chunk id → its file's id, path and language. */
  filesOfChunks(chunkIds: readonly number[]): Map<number, { fileId: number; path: string; language: string | null }> {
    if (chunkIds.length === 0) return new Map();
    const rows = this.db
      .prepare<[string], { id: number; fileId: number; path: string; language: string | null }>(
        `SELECT c.id, c.file_id AS fileId, f.path, f.language FROM chunks c JOIN files f ON f.id = c.file_id
         WHERE c.id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(chunkIds));
    return new Map(rows.map(({ id, ...file }) => [id, file]));
  }

  /** Chunk texts and their paths, for rebuilding the full-text index. */
  *iterateChunks(ids?: readonly number[]): Generator<{ id: number; path: string; symbols: string; content: string }> {
    const statement = ids
      ? this.db.prepare(
          `SELECT c.id, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id
           WHERE c.id IN (SELECT value FROM json_each(?))`,
        )
      : this.db.prepare("SELECT c.id, f.path, c.symbols, c.content FROM chunks c JOIN files f ON f.id = c.file_id");
    const rows = (ids ? statement.iterate(JSON.stringify(ids)) : statement.iterate()) as IterableIterator<{
      id: number;
      path: string;
      symbols: string;
      content: string;
    }>;
    yield* rows;
  }

  counts(): { files: number; indexed: number; skipped: number; failed: number; chunks: number; symbols: number } {
    const byStatus = this.db
      .prepare<
        [],
        {
          status: FileStatus;
          n: number;
        }
      >("SELECT status, count(*) AS n FROM files GROUP BY status")
      .all();
    const count = (status: FileStatus) => byStatus.find((row) => row.status === status)?.n ?? 0;
    const chunks = (this.db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
    const symbols = (this.db.prepare("SELECT count(*) AS n FROM symbols").get() as { n: number }).n;
    return {
      files: byStatus.reduce((sum, row) => sum + row.n, 0),
      indexed: count("indexed"),
      skipped: count("skipped"),
      failed: count("failed"),
      chunks,
      symbols,
    };
  }

  failures(limit: number): Array<{ path: string; reason: string | null }> {
    return this.db
      .prepare<[number], { path: string; reason: string | null }>(
        "SELECT path, reason FROM files WHERE status = 'failed' ORDER BY path LIMIT ?",
      )
      .all(limit);
  }
}
