import { getMeta, setMeta, type SqliteDatabase } from "./database.js";
import { visitVec0Blocks } from "./vec0-blocks.js";

export type VectorTable = "chunk_vectors" | "entry_vectors";

export interface VectorHit {
  id: number;
  /** Cosine similarity in [-1, 1]; higher is closer. */
  similarity: number;
}

/** Metadata columns of `entry_vectors`, filterable inside the k-NN query. */
export interface EntryVectorMetadata {
  sessionId: string;
  contentType: string;
}

export interface EntryVectorFilter {
  sessionId?: string;
  contentTypes?: readonly string[];
}

/**
 * sqlite-vec k-NN tables (`vec0`). The dimension comes from the embedder;
 * when the configured embedder changes, its tables are rebuilt empty and the
 * indexer fills them again. Every vector is unit length, so the tables use
 * plain L2 distance (same order as cosine, and measured ~25% faster in
 * sqlite-vec than its cosine metric) and similarity is 1 − d²/2.
 */
export class VectorStore {
  private readonly statements;

  constructor(
    private readonly db: SqliteDatabase,
    readonly embedderId: string,
    readonly dimensions: number,
  ) {
    this.ensureTable("chunk_vectors", "");
    this.ensureTable("entry_vectors", ", session_id text, content_type text");
    this.statements = {
      insertChunk: db.prepare("INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)"),
      deleteChunk: db.prepare("DELETE FROM chunk_vectors WHERE rowid = ?"),
      insertEntry: db.prepare("INSERT INTO entry_vectors (rowid, embedding, session_id, content_type) VALUES (?, ?, ?, ?)"),
      deleteEntry: db.prepare("DELETE FROM entry_vectors WHERE rowid = ?"),
    };
  }

  /** The database file, for a connection of another thread to read (undefined for an in-memory database). */
  get databasePath(): string | undefined {
    return this.db.memory ? undefined : this.db.name;
  }

  /** For a chunk that has no vector yet (chunk ids are never reused). */
  insertChunk(chunkId: number, vector: Float32Array): void {
    this.statements.insertChunk.run(BigInt(chunkId), toBlob(vector, this.dimensions));
  }

  upsertChunk(chunkId: number, vector: Float32Array): void {
    this.statements.deleteChunk.run(BigInt(chunkId));
    this.insertChunk(chunkId, vector);
  }

  deleteChunks(chunkIds: readonly number[]): void {
    for (const id of chunkIds) this.statements.deleteChunk.run(BigInt(id));
  }

  deleteEntries(docs: readonly number[]): void {
    for (const doc of docs) this.statements.deleteEntry.run(BigInt(doc));
  }

  upsertEntry(doc: number, vector: Float32Array, metadata: EntryVectorMetadata): void {
    this.statements.deleteEntry.run(BigInt(doc));
    this.statements.insertEntry.run(BigInt(doc), toBlob(vector, this.dimensions), metadata.sessionId, metadata.contentType);
  }

  /**
   * The k nearest chunks, and every further chunk as near as the k-th (see
   * `keepTiesAtCut`). sqlite-vec cuts a tie by rowid, so the query asks for a
   * few more than k, and for twice as many again while the last still ties.
   */
  nearestChunks(query: Float32Array, k: number): VectorHit[] {
    if (!(k > 0)) return [];
    const statement = this.db.prepare<[Buffer, number], { id: number; distance: number }>(
      "SELECT rowid AS id, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? ORDER BY distance",
    );
    const blob = toBlob(query, this.dimensions);
    for (let asked = Math.min(k + TIE_MARGIN, VEC0_MAX_K); ; asked = Math.min(asked * 2, VEC0_MAX_K)) {
      const hits = statement.all(blob, asked).map(toHit);
      const last = hits[hits.length - 1];
      const stillTied = last !== undefined && hits.length > k && last.similarity === (hits[k - 1] as VectorHit).similarity;
      if (!stillTied || hits.length < asked || asked === VEC0_MAX_K || hasNoSimilarity(last.similarity)) return keepTiesAtCut(hits, k);
    }
  }

  /** The query's cosine similarity to each of these chunks; chunks without a vector are left out. */
  chunkSimilarities(query: Float32Array, chunkIds: readonly number[]): VectorHit[] {
    if (query.length !== this.dimensions)
      throw new Error(`Embedding has ${query.length} dimensions; the index expects ${this.dimensions}.`);
    const select = this.db.prepare<[bigint], { embedding: Buffer }>("SELECT embedding FROM chunk_vectors WHERE rowid = ?");
    return chunkIds.flatMap((id) => {
      const row = select.get(BigInt(id));
      if (!row) return [];
      const stored = toVector(row.embedding);
      let dot = 0;
      for (let index = 0; index < this.dimensions; index++) dot += (query[index] as number) * (stored[index] as number);
      return [{ id, similarity: dot }];
    });
  }

  nearestEntries(query: Float32Array, k: number, filter: EntryVectorFilter = {}): VectorHit[] {
    const clauses = ["embedding MATCH ?", "k = ?"];
    const params: unknown[] = [toBlob(query, this.dimensions), k];
    if (filter.sessionId) {
      clauses.push("session_id = ?");
      params.push(filter.sessionId);
    }
    if (filter.contentTypes?.length) {
      clauses.push(`content_type IN (${filter.contentTypes.map(() => "?").join(", ")})`);
      params.push(...filter.contentTypes);
    }
    const rows = this.db
      .prepare(`SELECT rowid AS id, distance FROM entry_vectors WHERE ${clauses.join(" AND ")} ORDER BY distance`)
      .all(...params) as Array<{ id: number; distance: number }>;
    return rows.map(toHit);
  }

  /**
   * Every chunk vector, for loading an in-memory copy, a storage block at a
   * time (`visitVec0Blocks`: about three times as fast as a row each). The vector is
   * a view valid only during the call. Throws `Vec0LayoutError` where
   * sqlite-vec's storage is not as expected: `iterateChunkVectors` then.
   */
  visitChunkVectorBlocks(visit: (id: number, vector: Float32Array) => void): void {
    visitVec0Blocks(this.db, "chunk_vectors", this.dimensions, visit);
  }

  /** Every chunk vector, a row at a time. */
  *iterateChunkVectors(): Generator<{ id: number; vector: Float32Array }> {
    const rows = this.db
      .prepare<
        [],
        {
          id: number;
          embedding: Buffer;
        }
      >("SELECT rowid AS id, embedding FROM chunk_vectors")
      .iterate();
    for (const row of rows) yield { id: row.id, vector: toVector(row.embedding) };
  }

  chunkVectorIds(): number[] {
    return this.db
      .prepare<[], { id: number }>("SELECT rowid AS id FROM chunk_vectors")
      .all()
      .map((row) => row.id);
  }

  chunkVector(id: number): Float32Array | undefined {
    const row = this.db.prepare<[bigint], { embedding: Buffer }>("SELECT embedding FROM chunk_vectors WHERE rowid = ?").get(BigInt(id));
    return row ? toVector(row.embedding) : undefined;
  }

  /** Chunks that have no vector yet (new embedder, or an interrupted backfill). */
  chunksWithoutVectors(limit: number): number[] {
    const rows = this.db
      .prepare<[number], { id: number }>(
        `SELECT c.id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.rowid = c.id) LIMIT ?`,
      )
      .all(limit);
    return rows.map((row) => row.id);
  }

  entriesWithoutVectors(limit: number): number[] {
    const rows = this.db
      .prepare<[number], { doc: number }>(
        `SELECT e.doc FROM content_entries e WHERE NOT EXISTS (SELECT 1 FROM entry_vectors v WHERE v.rowid = e.doc) LIMIT ?`,
      )
      .all(limit);
    return rows.map((row) => row.doc);
  }

  /** Chunks or entries that have no vector yet. Cheap when none are missing (the usual case). */
  countMissing(table: VectorTable): number {
    const source = table === "chunk_vectors" ? "chunks" : "content_entries";
    const rows = (this.db.prepare(`SELECT count(*) AS n FROM ${source}`).get() as { n: number }).n;
    if (rows === this.count(table)) return 0;
    const sql =
      table === "chunk_vectors"
        ? "SELECT count(*) AS n FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.rowid = c.id)"
        : "SELECT count(*) AS n FROM content_entries e WHERE NOT EXISTS (SELECT 1 FROM entry_vectors v WHERE v.rowid = e.doc)";
    return (this.db.prepare(sql).get() as { n: number }).n;
  }

  /**
   * Vectors stored in the table, counted in sqlite-vec's `<table>_rowids`
   * (one row per vector, removed with it): a count of the vec0 table itself
   * reads every stored vector, ≈ 88 MB and 15–50 ms on a 28k-file project,
   * which every `sylk index` paid to learn that none was missing.
   */
  count(table: VectorTable): number {
    return (this.db.prepare(`SELECT count(*) AS n FROM ${table}_rowids`).get() as { n: number }).n;
  }

  private ensureTable(table: VectorTable, metadataColumns: string): void {
    const metaKey = `embedder:${table}`;
    const signature = `${this.embedderId};l2`;
    const upToDate = () =>
      getMeta(this.db, metaKey) === signature && this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(table) !== undefined;
    if (upToDate()) return;
    this.db
      .transaction(() => {
        if (upToDate()) return; // another process got here first
        this.db.exec(`DROP TABLE IF EXISTS ${table}`);
        this.db.exec(`CREATE VIRTUAL TABLE ${table} USING vec0(embedding float[${this.dimensions}]${metadataColumns})`);
        setMeta(this.db, metaKey, signature);
      })
      .immediate();
  }
}

function toBlob(vector: Float32Array, dimensions: number): Buffer {
  if (vector.length !== dimensions) {
    throw new Error(`Embedding has ${vector.length} dimensions; the index expects ${dimensions}.`);
  }
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function toVector(blob: Buffer): Float32Array {
  // Copy: the buffer's memory belongs to SQLite's row and may be reused.
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** Nearest neighbours asked of sqlite-vec beyond k, to see whether the k-th ties with later ones. */
const TIE_MARGIN = 16;
/** The most neighbours one sqlite-vec query returns (its `SQLITE_VEC_VEC0_K_MAX`). */
const VEC0_MAX_K = 4096;

/**
 * A similarity that says the vectors share nothing: 0, within the rounding
 * of sqlite-vec's float32 distances (two orthogonal unit vectors come back a
 * few 1e-8 off).
 */
function hasNoSimilarity(similarity: number): boolean {
  return Math.abs(similarity) < 1e-6;
}

/**
 * The first `k` of these hits (best first), and every later one that ties the
 * k-th: which of equally near chunks to cut is not the vectors' to decide.
 * Their ids (sqlite-vec's order) and the in-memory copy's slots follow the
 * order the index's worker threads finished files, so a cut there kept
 * different chunks in two indexes of the same tree; the code searcher orders
 * ties by path and cuts there. A cut among hits with no similarity
 * (`hasNoSimilarity`) drops those instead: they are no neighbours, and on a
 * query of rare words all but a few chunks tie there.
 */
export function keepTiesAtCut(hits: readonly VectorHit[], k: number): VectorHit[] {
  if (!(k > 0)) return [];
  if (hits.length < k) return [...hits];
  const cut = (hits[k - 1] as VectorHit).similarity;
  if (hasNoSimilarity(cut)) return hits.filter((hit, index) => index < k && !hasNoSimilarity(hit.similarity));
  let end = k;
  while (end < hits.length && (hits[end] as VectorHit).similarity === cut) end++;
  return hits.slice(0, end);
}

function toHit(row: { id: number; distance: number }): VectorHit {
  return { id: row.id, similarity: 1 - (row.distance * row.distance) / 2 };
}
