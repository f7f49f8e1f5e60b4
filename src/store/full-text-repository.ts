import { getMeta, setMeta, type SqliteDatabase } from "./database.js";

function deferredKey(collection: FullTextCollection): string {
  return `fts_deferred:${collection}`;
}

function bytesKey(collection: FullTextCollection): string {
  return `fts_snapshot_bytes:${collection}`;
}

/** The two full-text collections and the tables that hold their documents. */
export type FullTextCollection = "code" | "history";

const SOURCES: Record<FullTextCollection, { table: string; id: string }> = {
  code: { table: "chunks", id: "id" },
  history: { table: "content_entries", id: "doc" },
};

export interface FullTextDocument {
  id: number;
  terms: string;
  length: number;
}

/**
 * SQL side of full-text persistence: snapshots of the in-memory FlexSearch
 * indexes, and the documents' terms, which the tables keep so that an index
 * can be completed or rebuilt without tokenising anything again.
 */
export class FullTextRepository {
  constructor(private readonly db: SqliteDatabase) {}

  /** Replaces the snapshot; changes deferred until now are part of it. */
  saveSnapshot(collection: FullTextCollection, parts: ReadonlyArray<readonly [string, string]>): void {
    const insert = this.db.prepare("INSERT INTO fts_snapshot (index_name, key, data) VALUES (?, ?, ?)");
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM fts_snapshot WHERE index_name = ?").run(collection);
      let bytes = 0;
      for (const [key, data] of parts) {
        insert.run(collection, key, data);
        bytes += Buffer.byteLength(data);
      }
      setMeta(this.db, deferredKey(collection), "0");
      setMeta(this.db, bytesKey(collection), String(bytes));
    })();
  }

  /** The snapshot's size, as noted when it was saved: summing its rows reads all 26 MB of a large one. */
  snapshotBytes(collection: FullTextCollection): number {
    const noted = getMeta(this.db, bytesKey(collection));
    if (noted !== undefined) return Number(noted);
    const row = this.db
      .prepare("SELECT coalesce(sum(octet_length(data)), 0) AS bytes FROM fts_snapshot WHERE index_name = ?")
      .get(collection) as { bytes: number };
    return row.bytes;
  }

  /** Documents changed in the table but not yet in the snapshot (they are reconciled on load). */
  deferredChanges(collection: FullTextCollection): number {
    return Number(getMeta(this.db, deferredKey(collection)) ?? 0);
  }

  addDeferredChanges(collection: FullTextCollection, count: number): void {
    this.db
      .prepare(
        `INSERT INTO meta (key, value) VALUES (?, ?)
         ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value`,
      )
      .run(deferredKey(collection), count);
  }

  loadSnapshot(collection: FullTextCollection): Array<[string, string]> {
    const rows = this.db
      .prepare("SELECT key, data FROM fts_snapshot WHERE index_name = ? ORDER BY key")
      .all(collection) as Array<{ key: string; data: string }>;
    return rows.map((row) => [row.key, row.data]);
  }

  /** Every live document's id and length. */
  lengths(collection: FullTextCollection): Array<{ id: number; length: number }> {
    const { table, id } = SOURCES[collection];
    return this.db.prepare(`SELECT ${id} AS id, term_count AS length FROM ${table}`).all() as Array<{
      id: number;
      length: number;
    }>;
  }

  documents(collection: FullTextCollection, ids?: readonly number[]): FullTextDocument[] {
    const { table, id } = SOURCES[collection];
    if (ids) {
      return this.db
        .prepare(
          `SELECT ${id} AS id, terms, term_count AS length FROM ${table} WHERE ${id} IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(ids)) as FullTextDocument[];
    }
    return this.db.prepare(`SELECT ${id} AS id, terms, term_count AS length FROM ${table}`).all() as FullTextDocument[];
  }

  /** Changes whenever another connection commits; cheap to poll. */
  dataVersion(): number {
    return this.db.pragma("data_version", { simple: true }) as number;
  }
}
