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
  /** Model calls. */
  turns: number;
  /** The user's prompts: what the user counts as the conversation's turns. */
  prompts: number;
  usage: Usage;
  /** Null for a session the user talks to; a sub-agent's session names the session that started it. */
  parentSessionId: string | null;
  /** The tool call of the parent that started it (delegate, consult_*). */
  parentToolUseId: string | null;
  /** The sub-agent's first instance and its type; null for root sessions (their instances are in agent_instances). */
  agentId: string | null;
  agentType: string | null;
  kind: SessionKind;
}

/** Why a session exists: the user's conversation, or one of the ways a sub-agent is started. */
const SESSION_KINDS = ["main", "knowledge", "delegate", "stage", "routed"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/** What a child session is created with. */
export interface SessionParent {
  parentSessionId: string;
  parentToolUseId: string | null;
  agentId: string;
  agentType: string;
  kind: Exclude<SessionKind, "main">;
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
  parent_session_id: string | null;
  parent_tool_use_id: string | null;
  agent_id: string | null;
  agent_type: string | null;
  kind: SessionKind;
  prompts: number;
}

/** Every column of a session, and its prompts counted from the content entries they are stored as. */
const SESSION_COLUMNS = `sessions.*, (SELECT count(*) FROM content_entries c WHERE c.session_id = sessions.id AND c.content_type = 'user_prompt') AS prompts`;

/** One message of a session as stored: what the model saw, and what it came from. */
export interface SessionMessageRow {
  ordinal: number;
  message: ChatMessage;
  /** The model call (turn) the message belongs to. */
  turn: number;
  /** Content entries holding this message's blocks, for lossless retrieval. */
  entryIds: string[];
  /** The context reference that evicted this message from the window, if any. */
  evictedBy: string | null;
}

/** Sessions and their message lists, so a conversation can be continued or resumed. */
export class SessionRepository {
  constructor(private readonly db: SqliteDatabase) {}

  create(session: Pick<SessionRecord, "id" | "title" | "provider" | "model"> & { parent?: SessionParent }, now: number = Date.now()): void {
    const parent = session.parent;
    this.db
      .prepare(
        `INSERT INTO sessions (id, created_at, updated_at, title, provider, model, parent_session_id, parent_tool_use_id, agent_id, agent_type, kind)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        session.id,
        now,
        now,
        session.title,
        session.provider,
        session.model,
        parent?.parentSessionId ?? null,
        parent?.parentToolUseId ?? null,
        parent?.agentId ?? null,
        parent?.agentType ?? null,
        parent?.kind ?? "main",
      );
  }

  get(id: string): SessionRecord | undefined {
    const row = this.db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`).get(id);
    return row ? toRecord(row) : undefined;
  }

  /** Root sessions whose id starts with `prefix` (users type the first characters). */
  findByPrefix(prefix: string): SessionRecord[] {
    const rows = this.db
      .prepare<[string], SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id LIKE ? ESCAPE '\\' AND parent_session_id IS NULL ORDER BY updated_at DESC LIMIT 10`,
      )
      .all(`${prefix.replace(/[\\%_]/g, "\\$&")}%`);
    return rows.map(toRecord);
  }

  /** The latest session the user talked to (a sub-agent's session is never continued on its own). */
  latest(): SessionRecord | undefined {
    const row = this.db
      .prepare<[], SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE parent_session_id IS NULL ORDER BY updated_at DESC, rowid DESC LIMIT 1`,
      )
      .get();
    return row ? toRecord(row) : undefined;
  }

  /** Root sessions, newest first. */
  list(limit: number): SessionRecord[] {
    const rows = this.db
      .prepare<[number], SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE parent_session_id IS NULL ORDER BY updated_at DESC LIMIT ?`,
      )
      .all(limit);
    return rows.map(toRecord);
  }

  /** The turn each of the session's prompts began, in order: prompt n (from 1) began turn `promptTurns[n - 1]`. */
  promptTurns(sessionId: string): number[] {
    return this.db
      .prepare("SELECT turn_number FROM content_entries WHERE session_id = ? AND content_type = 'user_prompt' ORDER BY turn_number, doc")
      .pluck()
      .all(sessionId) as number[];
  }

  /** Every session below `sessionId` (children, their children, …), oldest first. */
  descendants(sessionId: string): SessionRecord[] {
    const rows = this.db
      .prepare<[string], SessionRow>(
        `WITH RECURSIVE tree(id) AS (
           SELECT id FROM sessions WHERE parent_session_id = ?
           UNION ALL SELECT sessions.id FROM sessions JOIN tree ON sessions.parent_session_id = tree.id
         )
         SELECT ${SESSION_COLUMNS} FROM sessions JOIN tree USING (id) ORDER BY created_at, rowid`,
      )
      .all(sessionId);
    return rows.map(toRecord);
  }

  /** The agent ids used anywhere in a session tree: its sessions' agents and every instance of their handoff chains. */
  agentIdsInTree(rootSessionId: string): string[] {
    return this.db
      .prepare<[string], string>(
        `WITH RECURSIVE tree(id) AS (
           SELECT ? UNION ALL SELECT sessions.id FROM sessions JOIN tree ON sessions.parent_session_id = tree.id
         )
         SELECT agent_id FROM sessions JOIN tree USING (id) WHERE agent_id IS NOT NULL
         UNION SELECT agent_id FROM agent_instances WHERE session_id IN (SELECT id FROM tree)`,
      )
      .pluck()
      .all(rootSessionId);
  }

  /** Appends a message; returns its ordinal. */
  appendMessage(sessionId: string, message: ChatMessage, details: { turn?: number; entryIds?: string[] } = {}): number {
    const row = this.db
      .prepare(
        `INSERT INTO session_messages (session_id, ordinal, role, content, turn, entry_ids)
         VALUES (?, (SELECT coalesce(max(ordinal), -1) + 1 FROM session_messages WHERE session_id = ?), ?, ?, ?, ?)
         RETURNING ordinal`,
      )
      .get(
        sessionId,
        sessionId,
        message.role,
        JSON.stringify(message.content),
        details.turn ?? 0,
        JSON.stringify(details.entryIds ?? []),
      ) as {
      ordinal: number;
    };
    this.db.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(Date.now(), sessionId);
    return row.ordinal;
  }

  messageRows(sessionId: string): SessionMessageRow[] {
    const rows = this.db
      .prepare<[string], { ordinal: number; role: ChatMessage["role"]; content: string; turn: number; entry_ids: string }>(
        "SELECT ordinal, role, content, turn, entry_ids FROM session_messages WHERE session_id = ? ORDER BY ordinal",
      )
      .all(sessionId);
    const runs = this.db
      .prepare<[string], EvictedRun>(
        "SELECT first_ordinal AS first, last_ordinal AS last, reference_id AS referenceId FROM session_evictions WHERE session_id = ? ORDER BY first_ordinal",
      )
      .all(sessionId);
    // Both are in ordinal order: one pass gives each message the run it falls in, if any.
    let run = 0;
    return rows.map((row) => {
      while (run < runs.length && (runs[run] as EvictedRun).last < row.ordinal) run++;
      const covering = runs[run];
      return {
        ordinal: row.ordinal,
        message: { role: row.role, content: JSON.parse(row.content) as ChatMessage["content"] },
        turn: row.turn,
        entryIds: JSON.parse(row.entry_ids) as string[],
        evictedBy: covering && covering.first <= row.ordinal ? covering.referenceId : null,
      };
    });
  }

  /**
   * Marks messages as evicted by a reference (they stay stored; the window
   * shows the marker instead): one row per run of consecutive ordinals, so a
   * handoff's trim of a long session writes a row or two, not every message.
   * Messages are evicted once (a marker folds by its reference, not by its
   * messages), so runs never overlap.
   */
  markEvicted(sessionId: string, ordinals: readonly number[], referenceId: string): void {
    const insert = this.db.prepare(
      "INSERT INTO session_evictions (session_id, first_ordinal, last_ordinal, reference_id) VALUES (?, ?, ?, ?)",
    );
    for (const run of consecutiveRuns(ordinals)) insert.run(sessionId, run.first, run.last, referenceId);
  }

  messages(sessionId: string): ChatMessage[] {
    const rows = this.db
      .prepare<[string], { role: ChatMessage["role"]; content: string }>(
        "SELECT role, content FROM session_messages WHERE session_id = ? ORDER BY ordinal",
      )
      .all(sessionId);
    return rows.map((row) => ({ role: row.role, content: JSON.parse(row.content) as ChatMessage["content"] }));
  }

  /** One model call: its usage is added, and the session now names the model that answered (`/model` switches it mid-session). */
  recordTurn(sessionId: string, usage: Usage, model?: string): void {
    this.db
      .prepare(
        `UPDATE sessions SET turns = turns + 1, updated_at = ?, model = coalesce(?, model), input_tokens = input_tokens + ?,
           output_tokens = output_tokens + ?, cache_read_tokens = cache_read_tokens + ?,
           cache_write_tokens = cache_write_tokens + ?
         WHERE id = ?`,
      )
      .run(Date.now(), model ?? null, usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens, sessionId);
  }
}

interface EvictedRun {
  first: number;
  last: number;
  referenceId: string;
}

/** The ordinals (any order) as maximal runs of consecutive integers, ascending. */
export function consecutiveRuns(ordinals: readonly number[]): Array<{ first: number; last: number }> {
  const sorted = [...ordinals].sort((a, b) => a - b);
  const runs: Array<{ first: number; last: number }> = [];
  for (const ordinal of sorted) {
    const last = runs.at(-1);
    // A repeated ordinal stays in its run (a second run starting there would collide in the table's key).
    if (last && ordinal <= last.last + 1) last.last = Math.max(last.last, ordinal);
    else runs.push({ first: ordinal, last: ordinal });
  }
  return runs;
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
    parentSessionId: row.parent_session_id ?? null,
    parentToolUseId: row.parent_tool_use_id ?? null,
    agentId: row.agent_id ?? null,
    agentType: row.agent_type ?? null,
    kind: row.kind ?? "main",
    prompts: row.prompts,
  };
}
