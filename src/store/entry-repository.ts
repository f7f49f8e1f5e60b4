import type { SqliteDatabase } from "./database.js";
import type {
  ContentEntry,
  ContentFilters,
  ContentType,
  ContextReference,
  DerivedContentType,
  EntrySummary,
  ReferenceType,
} from "./content-types.js";

interface EntryRow {
  doc: number;
  id: string;
  content_hash: string;
  session_id: string;
  agent_id: string;
  agent_type: string;
  content_type: string;
  content: string;
  token_count: number;
  timestamp: number;
  turn_number: number;
  keywords: string | null;
  entities: string | null;
  parent_id: string | null;
  child_ids: string | null;
  related_files: string | null;
  metadata: string | null;
}

export interface StoredEntry {
  /** Integer key of the entry in the full-text and vector indexes. */
  doc: number;
  entry: ContentEntry;
}

const ENTRY_COLUMNS = `doc, id, content_hash, session_id, agent_id, agent_type, content_type, content, token_count,
  timestamp, turn_number, keywords, entities, parent_id, child_ids, related_files, metadata`;

/** SQL side of the universal content store: entries and context references. */
export class EntryRepository {
  private readonly insertStatement;
  private readonly byIdStatement;
  private readonly appendChildStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.insertStatement = db.prepare(
      `INSERT INTO content_entries (id, content_hash, session_id, agent_id, agent_type, content_type, content,
         token_count, timestamp, turn_number, keywords, entities, parent_id, child_ids, related_files, metadata,
         terms, term_count)
       VALUES (@id, @contentHash, @sessionId, @agentId, @agentType, @contentType, @content, @tokenCount, @timestamp,
         @turnNumber, @keywords, @entities, @parentId, @childIds, @relatedFiles, @metadata, @terms, @termCount)`,
    );
    this.byIdStatement = db.prepare(`SELECT ${ENTRY_COLUMNS} FROM content_entries WHERE id = ?`);
    this.appendChildStatement = db.prepare(
      `UPDATE content_entries SET child_ids = json_insert(coalesce(child_ids, '[]'), '$[#]', ?) WHERE id = ?`,
    );
  }

  /**
   * Inserts an entry (with its full-text terms) and links it under its
   * parent; returns its integer doc key.
   */
  insert(entry: ContentEntry, terms: string, termCount: number): number {
    const result = this.insertStatement.run({
      ...entry,
      terms,
      termCount,
      parentId: entry.parentId ?? null,
      keywords: JSON.stringify(entry.keywords),
      entities: JSON.stringify(entry.entities),
      childIds: JSON.stringify(entry.childIds),
      relatedFiles: JSON.stringify(entry.relatedFiles),
      metadata: JSON.stringify(entry.metadata),
    });
    if (entry.parentId) this.appendChildStatement.run(entry.id, entry.parentId);
    return Number(result.lastInsertRowid);
  }

  getById(id: string): StoredEntry | undefined {
    const row = this.byIdStatement.get(id) as EntryRow | undefined;
    return row ? toStored(row) : undefined;
  }

  /** Entries in the order of `ids`; unknown ids are left out. */
  getByIds(ids: readonly string[]): StoredEntry[] {
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare<[string], EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM content_entries WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids));
    const byId = new Map(rows.map((row) => [row.id, toStored(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** What references are made of, without reading the (possibly large) content; in the order of `ids`. */
  getSummariesByIds(ids: readonly string[]): EntrySummary[] {
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare<[string], Pick<EntryRow, "id" | "content_type" | "token_count" | "timestamp" | "turn_number" | "keywords" | "entities">>(
        `SELECT id, content_type, token_count, timestamp, turn_number, keywords, entities
         FROM content_entries WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(ids));
    const byId = new Map<string, EntrySummary>(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          contentType: row.content_type as ContentType,
          tokenCount: row.token_count,
          timestamp: row.timestamp,
          turnNumber: row.turn_number,
          keywords: parseArray(row.keywords),
          entities: parseArray(row.entities),
        },
      ]),
    );
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  getByDocs(docs: readonly number[]): StoredEntry[] {
    if (docs.length === 0) return [];
    const rows = this.db
      .prepare<[string], EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM content_entries WHERE doc IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(docs));
    const byDoc = new Map(rows.map((row) => [row.doc, toStored(row)]));
    return docs.flatMap((doc) => byDoc.get(doc) ?? []);
  }

  /** Inclusive, in turn order, then in the order written. */
  getByTurnRange(sessionId: string, fromTurn: number, toTurn: number): StoredEntry[] {
    const rows = this.db
      .prepare<[string, number, number], EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM content_entries
         WHERE session_id = ? AND turn_number >= ? AND turn_number <= ?
         ORDER BY turn_number ASC, doc ASC`,
      )
      .all(sessionId, fromTurn, toTurn);
    return rows.map(toStored);
  }

  /** Of `docs`, those that pass the filters, in the same order. */
  filterDocs(docs: readonly number[], filters: ContentFilters): number[] {
    if (docs.length === 0 || !hasFilters(filters)) return [...docs];
    const { where, params } = filterClause(filters);
    const rows = this.db
      .prepare(`SELECT doc FROM content_entries WHERE doc IN (SELECT value FROM json_each(?)) AND ${where}`)
      .all(JSON.stringify(docs), ...params) as Array<{ doc: number }>;
    const passing = new Set(rows.map((row) => row.doc));
    return docs.filter((doc) => passing.has(doc));
  }

  /** Docs passing the filters, newest first; used when the filters are narrow enough to scan. */
  docsMatching(filters: ContentFilters, limit: number): number[] {
    const { where, params } = filterClause(filters);
    const rows = this.db
      .prepare(`SELECT doc FROM content_entries WHERE ${where} ORDER BY doc DESC LIMIT ?`)
      .all(...params, limit) as Array<{ doc: number }>;
    return rows.map((row) => row.doc);
  }

  /** A tool's results (`metadata.tool`), newest first. */
  toolResults(tool: string, limit: number): StoredEntry[] {
    const rows = this.db
      .prepare<[string, number], EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM content_entries
         WHERE content_type = 'tool_result' AND json_extract(metadata, '$.tool') = ?
         ORDER BY doc DESC LIMIT ?`,
      )
      .all(tool, limit);
    return rows.map(toStored);
  }

  /**
   * Entries passing the filters in the order they happened (time, then as
   * written), at most `limit`: the first ones, or with `latest` the last ones.
   */
  chronological(filters: ContentFilters, limit: number, options: { latest?: boolean } = {}): ContentEntry[] {
    const { where, params } = filterClause(filters);
    const direction = options.latest ? "DESC" : "ASC";
    const rows = this.db
      .prepare(`SELECT ${ENTRY_COLUMNS} FROM content_entries WHERE ${where} ORDER BY timestamp ${direction}, doc ${direction} LIMIT ?`)
      .all(...params, limit) as EntryRow[];
    const entries = rows.map((row) => toStored(row).entry);
    return options.latest ? entries.reverse() : entries;
  }

  /**
   * Deletes a session's derived entries of one type (observations or
   * reflections: notes made from messages that stay stored), or only those
   * of them with the given ids; returns their docs. Nothing else in the
   * store is ever deleted.
   */
  deleteDerived(sessionId: string, contentType: DerivedContentType, ids?: readonly string[]): number[] {
    if (ids !== undefined) {
      return this.db
        .prepare<[string, string, string], number>(
          "DELETE FROM content_entries WHERE session_id = ? AND content_type = ? AND id IN (SELECT value FROM json_each(?)) RETURNING doc",
        )
        .pluck()
        .all(sessionId, contentType, JSON.stringify(ids));
    }
    return this.db
      .prepare<[string, string], number>("DELETE FROM content_entries WHERE session_id = ? AND content_type = ? RETURNING doc")
      .pluck()
      .all(sessionId, contentType);
  }

  /** A session's newest entries of a type, returned oldest first. */
  recentOfType(sessionId: string, contentType: ContentType, limit: number): ContentEntry[] {
    const rows = this.db
      .prepare<[string, string, number], EntryRow>(
        `SELECT ${ENTRY_COLUMNS} FROM content_entries WHERE session_id = ? AND content_type = ? ORDER BY timestamp DESC, doc DESC LIMIT ?`,
      )
      .all(sessionId, contentType, limit);
    return rows.map((row) => toStored(row).entry).reverse();
  }

  countMatching(filters: ContentFilters): number {
    const { where, params } = filterClause(filters);
    const row = this.db.prepare(`SELECT count(*) AS n FROM content_entries WHERE ${where}`).get(...params) as {
      n: number;
    };
    return row.n;
  }

  count(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM content_entries").get() as { n: number }).n;
  }

  saveReference(reference: ContextReference): void {
    this.db
      .prepare(
        `INSERT INTO context_references (id, type, session_id, agent_id, content_ids, summary, tokens_saved,
           turn_range_start, turn_range_end, timestamp, topics, entities, query_hints, folded_into)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET content_ids = excluded.content_ids, summary = excluded.summary,
           tokens_saved = excluded.tokens_saved, turn_range_start = excluded.turn_range_start,
           turn_range_end = excluded.turn_range_end, topics = excluded.topics, entities = excluded.entities,
           query_hints = excluded.query_hints, folded_into = excluded.folded_into`,
      )
      .run(
        reference.id,
        reference.type,
        reference.sessionId,
        reference.agentId,
        JSON.stringify(reference.contentIds),
        reference.summary,
        reference.tokensSaved,
        reference.turnRange[0],
        reference.turnRange[1],
        reference.timestamp,
        JSON.stringify(reference.topics),
        JSON.stringify(reference.entities),
        JSON.stringify(reference.queryHints),
        reference.foldedInto ?? null,
      );
  }

  getReference(id: string): ContextReference | undefined {
    const row = this.db.prepare<[string], ReferenceRow>("SELECT * FROM context_references WHERE id = ?").get(id);
    return row ? toReference(row) : undefined;
  }

  listReferences(sessionId: string): ContextReference[] {
    const rows = this.db
      .prepare<[string], ReferenceRow>(
        "SELECT * FROM context_references WHERE session_id = ? ORDER BY turn_range_start ASC, created_at ASC",
      )
      .all(sessionId);
    return rows.map(toReference);
  }
}

interface ReferenceRow {
  id: string;
  type: string;
  session_id: string;
  agent_id: string;
  content_ids: string;
  summary: string;
  tokens_saved: number;
  turn_range_start: number;
  turn_range_end: number;
  timestamp: number;
  topics: string | null;
  entities: string | null;
  query_hints: string | null;
  folded_into: string | null;
}

function toReference(row: ReferenceRow): ContextReference {
  return {
    id: row.id,
    type: row.type as ReferenceType,
    sessionId: row.session_id,
    agentId: row.agent_id,
    contentIds: JSON.parse(row.content_ids) as string[],
    summary: row.summary,
    tokensSaved: row.tokens_saved,
    turnRange: [row.turn_range_start, row.turn_range_end],
    timestamp: row.timestamp,
    topics: parseArray(row.topics),
    entities: parseArray(row.entities),
    queryHints: parseArray(row.query_hints),
    ...(row.folded_into ? { foldedInto: row.folded_into } : {}),
  };
}

function toStored(row: EntryRow): StoredEntry {
  const entry: ContentEntry = {
    id: row.id,
    contentHash: row.content_hash,
    sessionId: row.session_id,
    agentId: row.agent_id,
    agentType: row.agent_type,
    contentType: row.content_type as ContentType,
    content: row.content,
    tokenCount: row.token_count,
    timestamp: row.timestamp,
    turnNumber: row.turn_number,
    keywords: parseArray(row.keywords),
    entities: parseArray(row.entities),
    childIds: parseArray(row.child_ids),
    relatedFiles: parseArray(row.related_files),
    metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : {},
  };
  if (row.parent_id) entry.parentId = row.parent_id;
  return { doc: row.doc, entry };
}

function parseArray(value: string | null): string[] {
  return value ? (JSON.parse(value) as string[]) : [];
}

function hasFilters(filters: ContentFilters): boolean {
  return Boolean(
    filters.contentTypes?.length ||
      filters.sessionId ||
      filters.sessionIds?.length ||
      filters.turnRange ||
      filters.timeRange ||
      filters.agentTypes?.length ||
      filters.metadataKinds?.length,
  );
}

function filterClause(filters: ContentFilters): { where: string; params: unknown[] } {
  const clauses: string[] = ["1 = 1"];
  const params: unknown[] = [];
  if (filters.contentTypes?.length) {
    clauses.push("content_type IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(filters.contentTypes));
  }
  if (filters.sessionId) {
    clauses.push("session_id = ?");
    params.push(filters.sessionId);
  }
  if (filters.sessionIds?.length) {
    clauses.push("session_id IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(filters.sessionIds));
  }
  if (filters.turnRange) {
    clauses.push("turn_number >= ? AND turn_number <= ?");
    params.push(filters.turnRange[0], filters.turnRange[1]);
  }
  if (filters.timeRange) {
    clauses.push("timestamp >= ? AND timestamp <= ?");
    params.push(filters.timeRange[0], filters.timeRange[1]);
  }
  if (filters.agentTypes?.length) {
    clauses.push("agent_type IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(filters.agentTypes));
  }
  if (filters.metadataKinds?.length) {
    clauses.push("json_extract(metadata, '$.kind') IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(filters.metadataKinds));
  }
  return { where: clauses.join(" AND "), params };
}
