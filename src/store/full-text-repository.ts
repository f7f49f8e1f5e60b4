import { getMeta, setMeta, type SqliteDatabase } from "./database.js";
import {
  bucketCountFor,
  bucketOf,
  decodeBucket,
  decodeDocuments,
  encodeBuckets,
  encodeDocuments,
  type DecodedSlots,
  type StoredDocuments,
  type StoredSlots,
} from "./postings-codec.js";

export type { DecodedSlots, StoredDocuments, StoredSlots } from "./postings-codec.js";

function deferredKey(collection: FullTextCollection): string {
  return `fts_deferred:${collection}`;
}

function bytesKey(collection: FullTextCollection): string {
  return `fts_snapshot_bytes:${collection}`;
}

/** The full-text collections and the tables that hold their documents. */
export type FullTextCollection = "code" | "history" | "knowledge";

const SOURCES: Record<FullTextCollection, { table: string; id: string }> = {
  code: { table: "chunks", id: "id" },
  history: { table: "content_entries", id: "doc" },
  knowledge: { table: "knowledge_items", id: "doc" },
};

export interface FullTextDocument {
  id: number;
  terms: string;
  length: number;
}

/** A snapshot's documents, and what is needed to read its postings term by term. */
export interface StoredSnapshot {
  documents: StoredDocuments;
  /** The highest document id in the snapshot: documents above it were added after it was saved. */
  maxId: number;
  /** How many buckets its terms are spread over (see `postings-codec.ts`). */
  buckets: number;
}

/**
 * SQL side of full-text persistence: snapshots of the in-memory indexes
 * (documents, and postings by term), and the documents' terms, which the
 * tables keep so that an index can be completed or rebuilt without
 * tokenising anything again.
 */
export class FullTextRepository {
  constructor(private readonly db: SqliteDatabase) {}

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /**
   * Runs `work` in a write transaction begun at once (`BEGIN IMMEDIATE`): no
   * other connection commits meanwhile, so what `work` reads of the tables
   * is what they hold when it commits.
   */
  writeTransaction<T>(work: () => T): T {
    // Nested, it would be a savepoint of a transaction that may still roll back.
    if (this.db.inTransaction) throw new Error("A full-text snapshot must be saved outside any other transaction.");
    return this.db.transaction(work).immediate();
  }

  /** Replaces the snapshot; changes deferred until now are part of it. */
  saveSnapshot(collection: FullTextCollection, documents: StoredDocuments, terms: ReadonlyArray<readonly [string, StoredSlots]>): void {
    if (!Number.isSafeInteger(documents.totalLength)) throw new Error("Document lengths must be whole numbers.");
    const buckets = bucketCountFor(terms.length);
    const rows = encodeBuckets(terms, buckets);
    const encodedDocuments = encodeDocuments(documents);
    const insert = this.db.prepare("INSERT INTO fts_postings (index_name, bucket, data) VALUES (?, ?, ?)");
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM fts_postings WHERE index_name = ?").run(collection);
      this.db.prepare("DELETE FROM fts_removed WHERE index_name = ?").run(collection);
      let bytes = encodedDocuments.length;
      for (const [bucket, data] of rows) {
        insert.run(collection, bucket, data);
        bytes += data.length;
      }
      this.db
        .prepare(
          `INSERT OR REPLACE INTO fts_documents (index_name, max_id, document_count, total_length, buckets, documents)
           VALUES (?, ?, ?, ?, ?, ?)`,
        )
        .run(collection, Math.max(0, documents.live.length - 1), documents.count, documents.totalLength, buckets, encodedDocuments);
      setMeta(this.db, deferredKey(collection), "0");
      setMeta(this.db, bytesKey(collection), String(bytes));
    })();
  }

  /** The snapshot's documents, or nothing when no snapshot was saved. */
  loadSnapshot(collection: FullTextCollection): StoredSnapshot | undefined {
    const row = this.db
      .prepare(
        "SELECT max_id AS maxId, document_count AS count, total_length AS totalLength, buckets, documents FROM fts_documents WHERE index_name = ?",
      )
      .get(collection) as { maxId: number; count: number; totalLength: number; buckets: number; documents: Buffer } | undefined;
    if (!row) return undefined;
    return { documents: decodeDocuments(row.documents, row.count, row.totalLength), maxId: row.maxId, buckets: row.buckets };
  }

  /**
   * Postings saved with `snapshot`: of every term, or with `terms`, of those
   * only (reading just the rows they hash to); ids marked 1 in `leftOut`
   * are left out.
   */
  loadPostings(
    collection: FullTextCollection,
    snapshot: StoredSnapshot,
    terms?: readonly string[],
    leftOut?: Uint8Array,
  ): Array<[string, DecodedSlots]> {
    if (!terms) {
      const rows = this.db.prepare("SELECT data FROM fts_postings WHERE index_name = ?").pluck().all(collection) as Buffer[];
      return rows.flatMap((data) => decodeBucket(data, undefined, leftOut));
    }
    const wanted = new Set(terms);
    const buckets = [...new Set(terms.map((term) => bucketOf(term, snapshot.buckets)))];
    const rows = this.db
      .prepare("SELECT data FROM fts_postings WHERE index_name = ? AND bucket IN (SELECT value FROM json_each(?))")
      .pluck()
      .all(collection, JSON.stringify(buckets)) as Buffer[];
    return rows.flatMap((data) => decodeBucket(data, wanted, leftOut));
  }

  /** The snapshot's size, as noted when it was saved. */
  snapshotBytes(collection: FullTextCollection): number {
    return Number(getMeta(this.db, bytesKey(collection)) ?? 0);
  }

  /** Documents changed in the table but not yet in the snapshot (they are reconciled on load). */
  deferredChanges(collection: FullTextCollection): number {
    return Number(getMeta(this.db, deferredKey(collection)) ?? 0);
  }

  /** Notes changes left for the next load to reconcile, with the ids of the documents removed. */
  addDeferredChanges(collection: FullTextCollection, count: number, removed: readonly number[] = []): void {
    this.db
      .prepare(
        `INSERT INTO meta (key, value) VALUES (?, ?)
         ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value`,
      )
      .run(deferredKey(collection), count);
    if (removed.length === 0) return;
    this.db
      .prepare("INSERT OR IGNORE INTO fts_removed (index_name, id) SELECT ?, value FROM json_each(?)")
      .run(collection, JSON.stringify(removed));
  }

  /** Documents noted as removed since the snapshot was saved (see `addDeferredChanges`). */
  removedSinceSnapshot(collection: FullTextCollection): number[] {
    return this.db.prepare("SELECT id FROM fts_removed WHERE index_name = ?").pluck().all(collection) as number[];
  }

  /** Every live document's id (from an index, without reading the rows). */
  ids(collection: FullTextCollection): number[] {
    const { table, id } = SOURCES[collection];
    return this.db.prepare(`SELECT ${id} FROM ${table}`).pluck().all() as number[];
  }

  /** How many live documents there are. */
  count(collection: FullTextCollection): number {
    const { table } = SOURCES[collection];
    return this.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  }

  /** Documents with ids above `id`: those added after a snapshot whose highest id it is. */
  documentsAfter(collection: FullTextCollection, afterId: number): FullTextDocument[] {
    const { table, id } = SOURCES[collection];
    return this.db
      .prepare(`SELECT ${id} AS id, terms, term_count AS length FROM ${table} WHERE ${id} > ? ORDER BY ${id}`)
      .all(afterId) as FullTextDocument[];
  }

  documents(collection: FullTextCollection, ids?: readonly number[]): FullTextDocument[] {
    const { table, id } = SOURCES[collection];
    if (ids) {
      return this.db
        .prepare(
          `SELECT ${id} AS id, terms, term_count AS length FROM ${table} WHERE ${id} IN (SELECT value FROM json_each(?)) ORDER BY ${id}`,
        )
        .all(JSON.stringify(ids)) as FullTextDocument[];
    }
    return this.db.prepare(`SELECT ${id} AS id, terms, term_count AS length FROM ${table} ORDER BY ${id}`).all() as FullTextDocument[];
  }

  /** Changes whenever another connection commits; cheap to poll. */
  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }
}
