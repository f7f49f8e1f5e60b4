import type { ChatMessage, Usage } from "../llm/model-types.js";
import type { SqliteDatabase } from "./database.js";

export interface SessionRecord {
  id: string;
  createdAt: number;
  updatedAt: number;
  /** The first prompt, shortened: what `sylk sessions` shows. */
  title: string;
  provider: string;
  model: string;
  turns: number;
  usage: Usage;
}

interface SessionRow {
  id: string;
  created_at: number;
  updated_at: number;
  title: string;
  provider: string;
  model: string;
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** Sessions and their message lists, so a conversation can be continued or resumed. */
export class SessionRepository {
  constructor(private readonly db: SqliteDatabase) {}

  create(session: Pick<SessionRecord, "id" | "title" | "provider" | "model">, now: number = Date.now()): void {
    this.db
      .prepare("INSERT INTO sessions (id, created_at, updated_at, title, provider, model) VALUES (?, ?, ?, ?, ?, ?)")
      .run(session.id, now, now, session.title, session.provider, session.model);
  }

  get(id: string): SessionRecord | undefined {
    const row = this.db.prepare("SELECT * FROM sessions WHERE id = ?").get(id) as SessionRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Sessions whose id starts with `prefix` (users type the first characters). */
  findByPrefix(prefix: string): SessionRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY updated_at DESC LIMIT 10")
      .all(`${prefix.replace(/[\\%_]/g, "\\$&")}%`) as SessionRow[];
    return rows.map(toRecord);
  }

  latest(): SessionRecord | undefined {
    const row = this.db.prepare("SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT 1").get() as
      | SessionRow
      | undefined;
    return row ? toRecord(row) : undefined;
  }

  list(limit: number): SessionRecord[] {
    const rows = this.db.prepare("SELECT * FROM sessions ORDER BY updated_at DESC LIMIT ?").all(limit) as SessionRow[];
    return rows.map(toRecord);
  }

  appendMessage(sessionId: string, message: ChatMessage): void {
    this.db
      .prepare(
        `INSERT INTO session_messages (session_id, ordinal, role, content)
         VALUES (?, (SELECT coalesce(max(ordinal), -1) + 1 FROM session_messages WHERE session_id = ?), ?, ?)`,
      )
      .run(sessionId, sessionId, message.role, JSON.stringify(message.content));
    this.db.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(Date.now(), sessionId);
  }

  messages(sessionId: string): ChatMessage[] {
    const rows = this.db
      .prepare("SELECT role, content FROM session_messages WHERE session_id = ? ORDER BY ordinal")
      .all(sessionId) as Array<{ role: ChatMessage["role"]; content: string }>;
    return rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) as ChatMessage["content"] }));
  }

  recordTurn(sessionId: string, usage: Usage): void {
    this.db
      .prepare(
        `UPDATE sessions SET turns = turns + 1, updated_at = ?, input_tokens = input_tokens + ?,
           output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?,
           cache_write_tokens = cache_write_tokens + ?
         WHERE id = ?`,
      )
      .run(Date.now(), usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens, sessionId);
  }
}

function toRecord(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    title: row.title,
    provider: row.provider,
    model: row.model,
    turns: row.turns,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      cacheReadTokens: row.cache_read_tokens,
      cacheWriteTokens: row.cache_write_tokens,
    },
  };
}
