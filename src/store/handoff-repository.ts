import type { SqliteDatabase } from "./database.js";
import { maskSecretsIn, maskSecretsInJson } from "../security/mask-values.js";
import { maskSecrets } from "../security/secrets.js";
import {
  type AgentInstanceRecord,
  type FileChangeRecord,
  type FiringRecord,
  type InstanceRow,
  type ProfileRow,
  type QualityObservationRecord,
  type TaskItem,
  type TaskListRecord,
  toFiring,
  toInstance,
  toObservation,
} from "./handoff-records.js";

/**
 * The handoff controller's rows in the project database: instances and
 * their chain, quality observations, firings, learned profile statistics,
 * and the prepared context's parts that outlive one process (task list,
 * files changed).
 */
export class HandoffRepository {
  constructor(private readonly db: SqliteDatabase) {}

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  startInstance(
    instance: Omit<AgentInstanceRecord, "endedAt" | "endReason" | "summary" | "profileApplied" | "userProfileApplied" | "onsetStart"> & {
      onsetStart?: string | null;
    },
  ): void {
    this.db
      .prepare(
        `INSERT INTO agent_instances (session_id, agent_id, agent_type, model, handoff_index, started_at, handoff_entry_id, state, state_text, prepared_fraction, onset_start)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        instance.sessionId,
        instance.agentId,
        instance.agentType,
        instance.model,
        instance.handoffIndex,
        instance.startedAt,
        instance.handoffEntryId,
        instance.state === null ? null : maskSecretsInJson(instance.state),
        instance.stateText === null ? null : maskSecrets(instance.stateText).text,
        instance.preparedFraction,
        instance.onsetStart ?? null,
      );
  }

  /**
   * Ends an instance with the statistics it contributes to the profiles
   * (`summary`); the caller puts them into this database's profile in the
   * same transaction and marks it applied. The user's database learns of
   * them later (`unappliedSummaries("user")`).
   */
  endInstance(sessionId: string, agentId: string, reason: string, summary: string, endedAt = Date.now()): void {
    this.db
      .prepare(
        "UPDATE agent_instances SET ended_at = ?, end_reason = ?, summary = ?, profile_applied = 0, user_profile_applied = 0 WHERE session_id = ? AND agent_id = ?",
      )
      .run(endedAt, reason, summary, sessionId, agentId);
  }

  /** A session ended and continued later: its last instance goes on (its contribution will be replaced when it ends again). */
  reopenInstance(sessionId: string, agentId: string): void {
    this.db
      .prepare("UPDATE agent_instances SET ended_at = NULL, end_reason = NULL WHERE session_id = ? AND agent_id = ?")
      .run(sessionId, agentId);
  }

  instance(sessionId: string, agentId: string): AgentInstanceRecord | undefined {
    const row = this.db
      .prepare<[string, string], InstanceRow>("SELECT * FROM agent_instances WHERE session_id = ? AND agent_id = ?")
      .get(sessionId, agentId);
    return row ? toInstance(row) : undefined;
  }

  profileStatistics(agentType: string, model: string): string | undefined {
    return this.db
      .prepare<[string, string], string>("SELECT statistics FROM handoff_profiles WHERE agent_type = ? AND model = ?")
      .pluck()
      .get(agentType, model);
  }

  /** The session's chain of instances, first to latest. */
  instances(sessionId: string): AgentInstanceRecord[] {
    const rows = this.db
      .prepare<[string], InstanceRow>("SELECT * FROM agent_instances WHERE session_id = ? ORDER BY handoff_index")
      .all(sessionId);
    return rows.map(toInstance);
  }

  latestInstance(sessionId: string): AgentInstanceRecord | undefined {
    const row = this.db
      .prepare<[string], InstanceRow>("SELECT * FROM agent_instances WHERE session_id = ? ORDER BY handoff_index DESC LIMIT 1")
      .get(sessionId);
    return row ? toInstance(row) : undefined;
  }

  /** Handoffs per session, for `sylk sessions` (sessions without any are absent). */
  handoffCounts(sessionIds: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    const query = this.db.prepare("SELECT max(handoff_index) FROM agent_instances WHERE session_id = ?").pluck();
    for (const id of sessionIds) {
      const count = query.get(id) as number | null;
      if (count) counts.set(id, count);
    }
    return counts;
  }

  /** Ended instances whose summary is not yet in this database's (`project`) or the user's (`user`) profile. */
  unappliedSummaries(scope: "project" | "user"): AgentInstanceRecord[] {
    const column = scope === "project" ? "profile_applied" : "user_profile_applied";
    const rows = this.db.prepare<[], InstanceRow>(`SELECT * FROM agent_instances WHERE summary IS NOT NULL AND ${column} = 0`).all();
    return rows.map(toInstance);
  }

  markApplied(scope: "project" | "user", sessionId: string, agentId: string): void {
    const column = scope === "project" ? "profile_applied" : "user_profile_applied";
    this.db.prepare(`UPDATE agent_instances SET ${column} = 1 WHERE session_id = ? AND agent_id = ?`).run(sessionId, agentId);
  }

  /** The session's prompts as typed (the first is the original task), oldest first: the first and the `limit` newest. */
  prompts(sessionId: string, limit: number): Array<{ turn: number; text: string }> {
    const first = this.db
      .prepare<[string], { turn: number; text: string }>(
        "SELECT turn_number AS turn, content AS text FROM content_entries WHERE session_id = ? AND content_type = 'user_prompt' ORDER BY turn_number, doc LIMIT 1",
      )
      .all(sessionId);
    if (limit === 0) return first;
    const newest = this.db
      .prepare<[string, number], { turn: number; text: string }>(
        "SELECT turn_number AS turn, content AS text FROM content_entries WHERE session_id = ? AND content_type = 'user_prompt' ORDER BY turn_number DESC, doc DESC LIMIT ?",
      )
      .all(sessionId, limit);
    const prompts = newest.reverse();
    return first[0] && prompts[0]?.turn !== first[0].turn ? [first[0], ...prompts] : prompts;
  }

  recordObservation(observation: QualityObservationRecord): void {
    this.db
      .prepare(
        `INSERT INTO quality_observations (session_id, agent_id, agent_type, model, turn, context_tokens, quality, signals, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        observation.sessionId,
        observation.agentId,
        observation.agentType,
        observation.model,
        observation.turn,
        observation.contextTokens,
        observation.quality,
        JSON.stringify(observation.signals),
        observation.createdAt ?? Date.now(),
      );
  }

  observations(sessionId: string, agentId: string): QualityObservationRecord[] {
    const rows = this.db
      .prepare<[string, string], Record<string, unknown>>(
        "SELECT * FROM quality_observations WHERE session_id = ? AND agent_id = ? ORDER BY id",
      )
      .all(sessionId, agentId);
    return rows.map(toObservation);
  }

  recordFiring(firing: FiringRecord): void {
    this.db
      .prepare(
        `INSERT INTO degradation_firings (session_id, agent_id, turn, condition, action, context_tokens, lookahead_tokens,
           predicted_mean, predicted_sd, lookahead_mean, lookahead_sd, peak, threshold, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        firing.sessionId,
        firing.agentId,
        firing.turn,
        firing.condition,
        firing.action,
        firing.contextTokens,
        firing.lookaheadTokens,
        firing.predictedMean,
        firing.predictedSd,
        firing.lookaheadMean,
        firing.lookaheadSd,
        firing.peak,
        firing.threshold,
        Date.now(),
      );
  }

  firings(sessionId: string): Array<FiringRecord & { createdAt: number }> {
    const rows = this.db
      .prepare<[string], Record<string, number | string>>("SELECT * FROM degradation_firings WHERE session_id = ? ORDER BY id")
      .all(sessionId);
    return rows.map(toFiring);
  }

  profileRows(): ProfileRow[] {
    return readProfileRows(this.db);
  }

  saveProfile(agentType: string, model: string, statistics: string): void {
    this.db
      .prepare(
        `INSERT INTO handoff_profiles (agent_type, model, statistics, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent_type, model) DO UPDATE SET statistics = excluded.statistics, updated_at = excluded.updated_at`,
      )
      .run(agentType, model, statistics, Date.now());
  }

  taskList(sessionId: string): TaskListRecord | undefined {
    const row = this.db
      .prepare<[string], { items: string; decisions: string; blockers: string; updated_at: number }>(
        "SELECT items, decisions, blockers, updated_at FROM task_lists WHERE session_id = ?",
      )
      .get(sessionId);
    if (!row) return undefined;
    return {
      items: JSON.parse(row.items) as TaskItem[],
      decisions: JSON.parse(row.decisions) as string[],
      blockers: JSON.parse(row.blockers) as string[],
      updatedAt: row.updated_at,
    };
  }

  /** Every session's task list that holds decisions, oldest first. */
  taskListsWithDecisions(): Array<{ sessionId: string; decisions: string[]; updatedAt: number }> {
    const rows = this.db
      .prepare<[], { session_id: string; decisions: string; updated_at: number }>(
        "SELECT session_id, decisions, updated_at FROM task_lists WHERE json_array_length(decisions) > 0 ORDER BY updated_at, session_id",
      )
      .all();
    return rows.map((row) => ({ sessionId: row.session_id, decisions: JSON.parse(row.decisions) as string[], updatedAt: row.updated_at }));
  }

  /** Saves the list the model keeps (`todo_write`), its secrets masked: it is the model's own text. */
  saveTaskList(sessionId: string, raw: Omit<TaskListRecord, "updatedAt">): void {
    const list = maskSecretsIn(raw).value;
    this.db
      .prepare(
        `INSERT INTO task_lists (session_id, items, decisions, blockers, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_id) DO UPDATE SET items = excluded.items, decisions = excluded.decisions,
           blockers = excluded.blockers, updated_at = excluded.updated_at`,
      )
      .run(sessionId, JSON.stringify(list.items), JSON.stringify(list.decisions), JSON.stringify(list.blockers), Date.now());
  }

  /** A file changed again adds to what it changed before; a file created in the session stays "create". */
  recordFileChange(sessionId: string, change: FileChangeRecord): void {
    this.db
      .prepare(
        `INSERT INTO files_changed (session_id, path, action, lines_added, lines_removed, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id, path) DO UPDATE SET
           action = CASE WHEN files_changed.action = 'create' AND excluded.action = 'modify' THEN 'create' ELSE excluded.action END,
           lines_added = files_changed.lines_added + excluded.lines_added,
           lines_removed = files_changed.lines_removed + excluded.lines_removed,
           updated_at = excluded.updated_at`,
      )
      .run(sessionId, change.path, change.action, change.linesAdded, change.linesRemoved, Date.now());
  }

  filesChanged(sessionId: string): FileChangeRecord[] {
    return this.db
      .prepare<[string], { path: string; action: FileChangeRecord["action"]; lines_added: number; lines_removed: number }>(
        "SELECT path, action, lines_added, lines_removed FROM files_changed WHERE session_id = ? ORDER BY updated_at, path",
      )
      .all(sessionId)
      .map((row) => ({ path: row.path, action: row.action, linesAdded: row.lines_added, linesRemoved: row.lines_removed }));
  }
}

/** The `handoff_profiles` rows of a database: the project's, or the user's (`profiles.db` has the same table). */
export function readProfileRows(db: SqliteDatabase): ProfileRow[] {
  return db.prepare<[], ProfileRow>("SELECT agent_type AS agentType, model, statistics FROM handoff_profiles").all();
}
