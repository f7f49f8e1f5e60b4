import type { SqliteDatabase } from "./database.js";

/** The searchable knowledge layers, as stored. */
export const KNOWLEDGE_LAYERS = ["user_knowledge", "agent_learnings", "skill_patterns", "external_knowledge"] as const;
export type KnowledgeLayer = (typeof KNOWLEDGE_LAYERS)[number];

/** User knowledge kinds: rules, preferences, definitions, facts. */
export const KNOWLEDGE_KINDS = ["rule", "preference", "definition", "fact"] as const;
export type KnowledgeKind = (typeof KNOWLEDGE_KINDS)[number];

export interface KnowledgeItem {
  id: string;
  layer: KnowledgeLayer;
  /** `rule | preference | definition | fact` for user knowledge; the layer's own kinds otherwise. */
  kind: string;
  /** A short name: what a search result and the prompt show first. */
  key: string;
  content: string;
  /** `user`, `agent` or `inquiry`. */
  source: string;
  category: string | null;
  confidence: number;
  details: Record<string, unknown>;
  sessionId: string | null;
  uses: number;
  createdAt: number;
  updatedAt: number;
}

interface ItemRow {
  doc: number;
  id: string;
  layer: KnowledgeLayer;
  kind: string;
  key: string;
  content: string;
  source: string;
  category: string | null;
  confidence: number;
  details: string;
  session_id: string | null;
  uses: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = "doc, id, layer, kind, key, content, source, category, confidence, details, session_id, uses, created_at, updated_at";

/**
 * Items added, removed or re-judged through each connection: every write to
 * `knowledge_items` is a method of this class, and a connection may have
 * several repositories, so the count is kept per connection, not per object.
 */
const writesByConnection = new WeakMap<SqliteDatabase, number>();

/** Knowledge items (schema 15), each with its full-text terms (the "knowledge" collection indexes them by doc). */
export class KnowledgeRepository {
  constructor(private readonly db: SqliteDatabase) {}

  /**
   * A value that changes whenever an item is added, removed or re-judged:
   * through this connection (counted here) or by another one, another
   * process's `sylk memory add` included (SQLite's `data_version`, which
   * moves on any commit of another connection). Reading it costs no query of
   * the table, so what is built from the items can be kept until it moves.
   */
  changeStamp(): string {
    return `${this.db.pragma("data_version", { simple: true }) as number}:${writesByConnection.get(this.db) ?? 0}`;
  }

  private noteWrite(): void {
    writesByConnection.set(this.db, (writesByConnection.get(this.db) ?? 0) + 1);
  }

  /** Stores an item; returns its full-text document id. */
  insert(item: KnowledgeItem, terms: string, termCount: number): number {
    const row = this.db
      .prepare(
        `INSERT INTO knowledge_items (id, layer, kind, key, content, source, category, confidence, details, session_id, terms, term_count, uses, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING doc`,
      )
      .get(
        item.id,
        item.layer,
        item.kind,
        item.key,
        item.content,
        item.source,
        item.category,
        item.confidence,
        JSON.stringify(item.details),
        item.sessionId,
        terms,
        termCount,
        item.uses,
        item.createdAt,
        item.updatedAt,
      ) as { doc: number };
    this.noteWrite();
    return row.doc;
  }

  /** Removes an item; returns its document id, or undefined when there was none. */
  remove(id: string): number | undefined {
    const row = this.db.prepare<[string], { doc: number }>("DELETE FROM knowledge_items WHERE id = ? RETURNING doc").get(id);
    if (row) this.noteWrite();
    return row?.doc;
  }

  get(id: string): KnowledgeItem | undefined {
    const row = this.db.prepare<[string], ItemRow>(`SELECT ${COLUMNS} FROM knowledge_items WHERE id = ?`).get(id);
    return row ? toItem(row) : undefined;
  }

  /** Items by document id, in the order given (what a full-text search returns). */
  byDocs(docs: readonly number[]): Array<{ doc: number; item: KnowledgeItem }> {
    if (docs.length === 0) return [];
    const rows = this.db
      .prepare<[string], ItemRow>(`SELECT ${COLUMNS} FROM knowledge_items WHERE doc IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(docs));
    const byDoc = new Map(rows.map((row) => [row.doc, row]));
    return docs.flatMap((doc) => {
      const row = byDoc.get(doc);
      return row ? [{ doc, item: toItem(row) }] : [];
    });
  }

  /** The user's own notes (`# text`, `sylk memory add`), newest first. */
  userNotes(limit: number): KnowledgeItem[] {
    return this.db
      .prepare<[number], ItemRow>(
        `SELECT ${COLUMNS} FROM knowledge_items WHERE layer = 'user_knowledge' AND source = 'user' ORDER BY updated_at DESC, doc DESC LIMIT ?`,
      )
      .all(limit)
      .map(toItem);
  }

  /** The newest items first, of one layer or all. */
  list(options: { layer?: KnowledgeLayer; limit: number }): KnowledgeItem[] {
    const rows = (
      options.layer
        ? this.db
            .prepare(`SELECT ${COLUMNS} FROM knowledge_items WHERE layer = ? ORDER BY updated_at DESC, doc DESC LIMIT ?`)
            .all(options.layer, options.limit)
        : this.db.prepare(`SELECT ${COLUMNS} FROM knowledge_items ORDER BY updated_at DESC, doc DESC LIMIT ?`).all(options.limit)
    ) as ItemRow[];
    return rows.map(toItem);
  }

  /** The newest item of a layer with this key (a skill by its name). */
  byKey(layer: KnowledgeLayer, key: string): KnowledgeItem | undefined {
    const row = this.db
      .prepare<[string, string], ItemRow>(
        `SELECT ${COLUMNS} FROM knowledge_items WHERE layer = ? AND key = ? ORDER BY updated_at DESC, doc DESC LIMIT 1`,
      )
      .get(layer, key);
    return row ? toItem(row) : undefined;
  }

  count(layer?: KnowledgeLayer): number {
    return (
      layer
        ? this.db.prepare("SELECT count(*) FROM knowledge_items WHERE layer = ?").pluck().get(layer)
        : this.db.prepare("SELECT count(*) FROM knowledge_items").pluck().get()
    ) as number;
  }

  /** The learning of a tool's error with this signature, if there is one. */
  learning(tool: string, signature: string): KnowledgeItem | undefined {
    const row = this.db
      .prepare<[string, string], ItemRow>(
        `SELECT ${COLUMNS} FROM knowledge_items
         WHERE layer = 'agent_learnings' AND json_extract(details, '$.tool') = ? AND json_extract(details, '$.signature') = ?
         ORDER BY updated_at DESC LIMIT 1`,
      )
      .get(tool, signature);
    return row ? toItem(row) : undefined;
  }

  /** A new confidence and details for an item (its text, and so its terms, unchanged). */
  rejudge(id: string, confidence: number, details: Record<string, unknown>, now: number): void {
    this.db
      .prepare("UPDATE knowledge_items SET confidence = ?, details = ?, updated_at = ? WHERE id = ?")
      .run(confidence, JSON.stringify(details), now, id);
    this.noteWrite();
  }

  /** An item was put in front of the model once more. */
  used(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.db.prepare("UPDATE knowledge_items SET uses = uses + 1 WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
  }
}

function toItem(row: ItemRow): KnowledgeItem {
  return {
    id: row.id,
    layer: row.layer,
    kind: row.kind,
    key: row.key,
    content: row.content,
    source: row.source,
    category: row.category,
    confidence: row.confidence,
    details: JSON.parse(row.details) as Record<string, unknown>,
    sessionId: row.session_id,
    uses: row.uses,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
