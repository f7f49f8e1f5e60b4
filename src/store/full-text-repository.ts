import { tmpdir } from "node:os";
import type Database from "better-sqlite3";
import { dirname, resolve } from "node:path";
import { deleteMeta, getMeta, setMeta, type SqliteDatabase } from "./database.js";
import {
  bucketCountFor,
  bucketOf,
  decodeBucket,
  decodeDocuments,
  encodeBuckets,
  encodeDocuments,
  MalformedSnapshotError,
  type DecodeBucketOptions,
  type DecodedSlots,
  type StoredDocuments,
  type StoredSlots,
} from "./postings-codec.js";
import { documentsChecksum, postingsChecksum, type DocumentsRowFields } from "./snapshot-checksum.js";
import { DamagedSnapshotError, type SnapshotDamage } from "./snapshot-damage.js";

export type { DecodedSlots, StoredDocuments, StoredSlots } from "./postings-codec.js";
export { DamagedSnapshotError, describeDamage, type FullTextIndexDamage, type SnapshotDamage } from "./snapshot-damage.js";

function deferredKey(collection: FullTextCollection): string {
  return `fts_deferred:${collection}`;
}

function bytesKey(collection: FullTextCollection): string {
  return `fts_snapshot_bytes:${collection}`;
}

function damageKey(collection: FullTextCollection): string {
  return `fts_damage:${collection}`;
}

interface DocumentsRow extends DocumentsRowFields {
  checksum: number;
  documents: Buffer;
}

interface PostingsRow {
  bucket: number;
  data: Buffer;
  checksum: number;
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
  /** How many postings rows were written with it (buckets that received no term have none). */
  rows: number;
}

/**
 * SQL side of full-text persistence: snapshots of the in-memory indexes
 * (documents, and postings by term), and the documents' terms, which the
 * tables keep so that an index can be completed or rebuilt without
 * tokenising anything again.
 */
export class FullTextRepository {
  /** Prepared on first use: a merge into a saved snapshot reads every bucket, 8,192 rows at 250k files. */
  private bucketRowStatement?: Database.Statement<[string, number], PostingsRow>;

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

  /** Replaces the snapshot, each row with its checksum; changes deferred until now are part of it, and damage noted before is gone. */
  saveSnapshot(collection: FullTextCollection, documents: StoredDocuments, terms: ReadonlyArray<readonly [string, StoredSlots]>): void {
    const buckets = bucketCountFor(terms.length);
    this.saveSnapshotRows(collection, documents, buckets, encodeBuckets(terms, buckets));
  }

  /**
   * `saveSnapshot` from rows encoded elsewhere (`encodeBucket`), each
   * bucket's row once: they are written as they come, so a snapshot built
   * a bucket at a time is never whole in memory.
   */
  saveSnapshotRows(
    collection: FullTextCollection,
    documents: StoredDocuments,
    buckets: number,
    rows: Iterable<[number, Uint8Array]>,
  ): void {
    if (!Number.isSafeInteger(documents.totalLength)) throw new Error("Document lengths must be whole numbers.");
    const encodedDocuments = encodeDocuments(documents);
    // Rows replace the saved ones as they come, and those no bucket took go at the end: rows merged from the saved
    // snapshot itself (`SavedSnapshotReader`) read each saved row before the row of its bucket number is written.
    const insert = this.db.prepare("INSERT OR REPLACE INTO fts_postings (index_name, bucket, data, checksum) VALUES (?, ?, ?, ?)");
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM fts_removed WHERE index_name = ?").run(collection);
      let bytes = encodedDocuments.length;
      let written = 0;
      const taken = new Uint8Array(buckets);
      for (const [bucket, data] of rows) {
        insert.run(collection, bucket, data, postingsChecksum(bucket, data));
        taken[bucket] = 1;
        bytes += data.length;
        written++;
      }
      const stale = this.db
        .prepare<[string], number>("SELECT bucket FROM fts_postings WHERE index_name = ?")
        .pluck()
        .all(collection)
        .filter((bucket) => !(bucket < buckets && taken[bucket] === 1));
      if (stale.length > 0)
        this.db
          .prepare("DELETE FROM fts_postings WHERE index_name = ? AND bucket IN (SELECT value FROM json_each(?))")
          .run(collection, JSON.stringify(stale));
      const fields: DocumentsRowFields = {
        maxId: Math.max(0, documents.live.length - 1),
        count: documents.count,
        totalLength: documents.totalLength,
        buckets,
        rows: written,
      };
      this.db
        .prepare(
          `INSERT OR REPLACE INTO fts_documents (index_name, max_id, document_count, total_length, buckets, postings_rows, checksum, documents)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          collection,
          fields.maxId,
          fields.count,
          fields.totalLength,
          buckets,
          fields.rows,
          documentsChecksum(encodedDocuments, fields),
          encodedDocuments,
        );
      setMeta(this.db, deferredKey(collection), "0");
      setMeta(this.db, bytesKey(collection), String(bytes));
      deleteMeta(this.db, damageKey(collection));
    })();
  }

  /** The snapshot's documents, or nothing when no snapshot was saved; `DamagedSnapshotError` when they are not as written. */
  loadSnapshot(collection: FullTextCollection): StoredSnapshot | undefined {
    const row = this.db
      .prepare<[string], DocumentsRow>(
        `SELECT max_id AS maxId, document_count AS count, total_length AS totalLength, buckets, postings_rows AS rows, checksum, documents
         FROM fts_documents WHERE index_name = ?`,
      )
      .get(collection);
    if (!row) return undefined;
    const damaged = (problem: string) => new DamagedSnapshotError(collection, { part: "documents", problem });
    if (documentsChecksum(row.documents, row) !== row.checksum) throw damaged("its checksum does not match");
    if (!(Number.isSafeInteger(row.buckets) && row.buckets > 0 && (row.buckets & (row.buckets - 1)) === 0))
      throw damaged("its bucket count is not a power of two");
    if (!(Number.isSafeInteger(row.rows) && row.rows >= 0 && row.rows <= row.buckets))
      throw damaged("its postings row count is impossible");
    try {
      const documents = decodeDocuments(row.documents, row.count, row.totalLength, row.maxId);
      return { documents, maxId: row.maxId, buckets: row.buckets, rows: row.rows };
    } catch (error) {
      if (error instanceof MalformedSnapshotError) throw damaged(error.problem);
      throw error;
    }
  }

  /**
   * Postings saved with `snapshot`: of every term, or with `terms`, of those
   * only (reading just the rows they hash to); ids marked 1 in `leftOut`
   * are left out. Each row's checksum is checked before it is decoded; a
   * row that does not match, does not decode or is missing throws
   * `DamagedSnapshotError`.
   */
  loadPostings(
    collection: FullTextCollection,
    snapshot: StoredSnapshot,
    terms?: readonly string[],
    leftOut?: Uint8Array,
  ): Array<[string, DecodedSlots]> {
    const missing = (problem: string) => new DamagedSnapshotError(collection, { part: "postings", problem });
    if (!terms) {
      const rows = this.db
        .prepare<[string], PostingsRow>("SELECT bucket, data, checksum FROM fts_postings WHERE index_name = ?")
        .all(collection);
      if (rows.length !== snapshot.rows) throw missing(`it has ${rows.length} rows where ${snapshot.rows} were written`);
      return rows.flatMap((row) => this.decodePostingsRow(collection, snapshot, row, { leftOut }));
    }
    const wanted = new Set(terms);
    const buckets = [...new Set(terms.map((term) => bucketOf(term, snapshot.buckets)))];
    const rows = this.db
      .prepare<[string, string], PostingsRow>(
        "SELECT bucket, data, checksum FROM fts_postings WHERE index_name = ? AND bucket IN (SELECT value FROM json_each(?))",
      )
      .all(collection, JSON.stringify(buckets));
    // Every bucket holds terms but in the smallest indexes (≈ 64 terms a bucket): where all had a row, none may lack one.
    if (snapshot.rows === snapshot.buckets && rows.length !== buckets.length)
      throw missing(`${buckets.length - rows.length} of the rows searched are missing`);
    return rows.flatMap((row) => this.decodePostingsRow(collection, snapshot, row, { wanted, leftOut }));
  }

  /**
   * Reads the whole snapshot as a load would, checksums and decoding
   * included, without building an index: what is damaged, if anything.
   */
  verifySnapshot(collection: FullTextCollection): SnapshotDamage | undefined {
    try {
      const snapshot = this.loadSnapshot(collection);
      if (snapshot) this.loadPostings(collection, snapshot);
      return undefined;
    } catch (error) {
      if (error instanceof DamagedSnapshotError) return error.damage;
      throw error;
    }
  }

  /** Notes damage found by a process that could not repair it (a one-off search), for the next `sylk index` to rebuild. */
  recordDamage(collection: FullTextCollection, damage: SnapshotDamage): void {
    setMeta(this.db, damageKey(collection), JSON.stringify(damage));
  }

  /** Damage noted by `recordDamage` and not yet repaired (a save clears it). */
  recordedDamage(collection: FullTextCollection): SnapshotDamage | undefined {
    const noted = getMeta(this.db, damageKey(collection));
    if (noted === undefined) return undefined;
    try {
      const { part, problem } = JSON.parse(noted) as Partial<SnapshotDamage>;
      if (typeof part === "string" && typeof problem === "string") return { part, problem };
    } catch {
      // noted in a form this version does not read: still damage to repair
    }
    return { part: "snapshot", problem: "noted as damaged" };
  }

  private decodePostingsRow(
    collection: FullTextCollection,
    snapshot: StoredSnapshot,
    row: PostingsRow,
    options: Omit<DecodeBucketOptions, "maxId">,
  ): Array<[string, DecodedSlots]> {
    const damaged = (problem: string) => new DamagedSnapshotError(collection, { part: `postings bucket ${row.bucket}`, problem });
    if (!(row.bucket >= 0 && row.bucket < snapshot.buckets)) throw damaged(`the snapshot has ${snapshot.buckets} buckets`);
    if (postingsChecksum(row.bucket, row.data) !== row.checksum) throw damaged("its checksum does not match");
    try {
      return decodeBucket(row.data, { ...options, maxId: snapshot.maxId });
    } catch (error) {
      if (error instanceof MalformedSnapshotError) throw damaged(error.problem);
      throw error;
    }
  }

  /**
   * The terms of one of the snapshot's buckets with their postings (none
   * for a bucket without a row), checked as `loadPostings` checks them.
   */
  postingsOfBucket(collection: FullTextCollection, snapshot: StoredSnapshot, bucket: number): Array<[string, DecodedSlots]> {
    this.bucketRowStatement ??= this.db.prepare<[string, number], PostingsRow>(
      "SELECT bucket, data, checksum FROM fts_postings WHERE index_name = ? AND bucket = ?",
    );
    const row = this.bucketRowStatement.get(collection, bucket);
    if (row) return this.decodePostingsRow(collection, snapshot, row, {});
    // As in `loadPostings`: where every bucket had a row, none may lack one.
    if (snapshot.rows === snapshot.buckets)
      throw new DamagedSnapshotError(collection, { part: `postings bucket ${bucket}`, problem: "its row is missing" });
    return [];
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
    return this.db.prepare<[string], number>("SELECT id FROM fts_removed WHERE index_name = ?").pluck().all(collection);
  }

  /** Every live document's id (from an index, without reading the rows). */
  ids(collection: FullTextCollection): number[] {
    const { table, id } = SOURCES[collection];
    return this.db.prepare<[], number>(`SELECT ${id} FROM ${table}`).pluck().all();
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
      .prepare<[number], FullTextDocument>(`SELECT ${id} AS id, terms, term_count AS length FROM ${table} WHERE ${id} > ? ORDER BY ${id}`)
      .all(afterId);
  }

  documents(collection: FullTextCollection, ids?: readonly number[]): FullTextDocument[] {
    const { table, id } = SOURCES[collection];
    if (ids) {
      return this.db
        .prepare<[string], FullTextDocument>(
          `SELECT ${id} AS id, terms, term_count AS length FROM ${table} WHERE ${id} IN (SELECT value FROM json_each(?)) ORDER BY ${id}`,
        )
        .all(JSON.stringify(ids));
    }
    return this.db.prepare<[], FullTextDocument>(`SELECT ${id} AS id, terms, term_count AS length FROM ${table} ORDER BY ${id}`).all();
  }

  /** Where a process may keep transient files beside the database (a directory of the system's for one in memory). */
  scratchDirectory(): string {
    return this.db.memory ? tmpdir() : dirname(resolve(this.db.name));
  }

  /** Changes whenever another connection commits; cheap to poll. */
  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }
}
