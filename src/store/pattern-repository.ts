import type { SqliteDatabase } from "./database.js";

export interface ToolErrorRow {
  sessionId: string;
  turn: number;
  tool: string;
  /** The start of the error's text (enough for its first line). */
  text: string;
  timestamp: number;
}

export interface CorrectionRow {
  sessionId: string;
  agentId: string;
  turn: number;
  createdAt: number;
  /** The user's prompt that counted as the correction (the session's last prompt at or before that turn), if recorded. */
  prompt: string | null;
}

export interface SharedFileRow {
  path: string;
  sessions: string[];
  lastChanged: number;
}

/** Reads across sessions for what recurs: tool errors, user corrections, files changed, test results. */
export class PatternRepository {
  constructor(private readonly db: SqliteDatabase) {}

  /** Failed tool results, newest `limit`, oldest first. */
  toolErrors(limit = 20_000): ToolErrorRow[] {
    const rows = this.db
      .prepare<[number], { session_id: string; turn_number: number; tool: string | null; text: string; timestamp: number }>(
        `SELECT session_id, turn_number, json_extract(metadata, '$.tool') AS tool, substr(content, 1, 400) AS text, timestamp
         FROM content_entries
         WHERE content_type = 'tool_result' AND json_extract(metadata, '$.isError') = 1
         ORDER BY timestamp DESC, doc DESC LIMIT ?`,
      )
      .all(limit);
    return rows.reverse().map((row) => ({
      sessionId: row.session_id,
      turn: row.turn_number,
      tool: row.tool ?? "unknown tool",
      text: row.text,
      timestamp: row.timestamp,
    }));
  }

  /** Turns the quality tracker counted a `user_correction` in, with the prompt that did it. */
  corrections(): CorrectionRow[] {
    const rows = this.db
      .prepare<[], { session_id: string; agent_id: string; turn: number; created_at: number; prompt: string | null }>(
        `SELECT q.session_id, q.agent_id, q.turn, q.created_at,
           (SELECT c.content FROM content_entries c
             WHERE c.session_id = q.session_id AND c.content_type = 'user_prompt' AND c.turn_number <= q.turn
             ORDER BY c.turn_number DESC, c.doc DESC LIMIT 1) AS prompt
         FROM quality_observations q
         WHERE coalesce(json_extract(q.signals, '$.user_correction'), 0) > 0
         ORDER BY q.id`,
      )
      .all();
    return rows.map((row) => ({
      sessionId: row.session_id,
      agentId: row.agent_id,
      turn: row.turn,
      createdAt: row.created_at,
      prompt: row.prompt,
    }));
  }

  /** Paths that `files_changed` holds for at least `minSessions` sessions, most sessions first. */
  sharedFileChanges(minSessions: number): SharedFileRow[] {
    const rows = this.db
      .prepare<[number], { path: string; sessions: string; last_changed: number }>(
        `SELECT path, json_group_array(session_id) AS sessions, max(updated_at) AS last_changed
         FROM files_changed GROUP BY path HAVING count(DISTINCT session_id) >= ?
         ORDER BY count(DISTINCT session_id) DESC, last_changed DESC`,
      )
      .all(minSessions);
    return rows.map((row) => ({ path: row.path, sessions: JSON.parse(row.sessions) as string[], lastChanged: row.last_changed }));
  }

  /** `test_result` entries, newest `limit`, oldest first. */
  testResults(limit = 5_000): Array<{ sessionId: string; content: string; timestamp: number }> {
    const rows = this.db
      .prepare<[number], { session_id: string; content: string; timestamp: number }>(
        `SELECT session_id, content, timestamp FROM content_entries WHERE content_type = 'test_result' ORDER BY timestamp DESC, doc DESC LIMIT ?`,
      )
      .all(limit);
    return rows.reverse().map((row) => ({ sessionId: row.session_id, content: row.content, timestamp: row.timestamp }));
  }

  /** Sessions with anything recorded. */
  sessionCount(): number {
    return (this.db.prepare("SELECT count(DISTINCT session_id) AS n FROM content_entries").get() as { n: number }).n;
  }
}
