import type { SqliteDatabase } from "./database.js";
import { maskSecrets } from "../security/secrets.js";

/** A routing decision of the guide, as stored, with what came of it. */
export interface RoutingDecision {
  id: string;
  sessionId: string;
  turnNumber: number;
  /** At most 200 characters. */
  userQuery: string;
  selectedAgent: string;
  confidence: number;
  reasoning: string;
  contextId: string;
  routedSessionId: string | null;
  /** 1, 0.5 or 0 once the next prompt (or the end of the session) said how it went; null until then. */
  outcome: number | null;
  createdAt: number;
}

interface DecisionRow {
  id: string;
  session_id: string;
  turn_number: number;
  user_query: string;
  selected_agent: string;
  confidence: number;
  reasoning: string;
  context_id: string;
  routed_session_id: string | null;
  outcome: number | null;
  created_at: number;
}

export interface StoredAffinity {
  agent: string;
  contextId: string;
  alpha: number;
  beta: number;
  observations: number;
}

/** The guide's routing decisions and the agents' affinities (schema 14). */
export class RoutingRepository {
  constructor(private readonly db: SqliteDatabase) {}

  record(decision: Omit<RoutingDecision, "outcome">): void {
    this.db
      .prepare(
        `INSERT INTO routing_decisions (id, session_id, turn_number, user_query, selected_agent, confidence, reasoning, context_id, routed_session_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        decision.id,
        decision.sessionId,
        decision.turnNumber,
        // Masked before it is cut: a cut key no longer looks like one.
        maskSecrets(decision.userQuery).text.slice(0, 200),
        decision.selectedAgent,
        decision.confidence,
        maskSecrets(decision.reasoning).text,
        decision.contextId,
        decision.routedSessionId,
        decision.createdAt,
      );
  }

  /** The session's decisions still waiting for their outcome. */
  pending(sessionId: string): RoutingDecision[] {
    const rows = this.db
      .prepare<[string], DecisionRow>("SELECT * FROM routing_decisions WHERE session_id = ? AND outcome IS NULL ORDER BY created_at")
      .all(sessionId);
    return rows.map(toDecision);
  }

  /**
   * The outcome of a decision and the affinity it teaches, together: a
   * decision's outcome is counted once, whoever closes it (the guard on
   * `outcome IS NULL` makes a second close a no-op).
   */
  close(
    decisionId: string,
    outcome: number,
    teach: (
      current: StoredAffinity | undefined,
      allContexts: StoredAffinity | undefined,
    ) => Pick<StoredAffinity, "alpha" | "beta" | "observations">,
  ): boolean {
    return this.db
      .transaction(() => {
        const decision = this.db
          .prepare<[string], DecisionRow>("SELECT * FROM routing_decisions WHERE id = ? AND outcome IS NULL")
          .get(decisionId);
        if (!decision) return false;
        this.db.prepare("UPDATE routing_decisions SET outcome = ? WHERE id = ?").run(outcome, decisionId);
        const next = teach(this.affinity(decision.selected_agent, decision.context_id), this.allContexts(decision.selected_agent));
        this.db
          .prepare(
            `INSERT INTO agent_affinities (agent, context_id, alpha, beta, observations, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (agent, context_id) DO UPDATE SET alpha = excluded.alpha, beta = excluded.beta, observations = excluded.observations, updated_at = excluded.updated_at`,
          )
          .run(decision.selected_agent, decision.context_id, next.alpha, next.beta, next.observations, Date.now());
        return true;
      })
      .immediate();
  }

  affinity(agent: string, contextId: string): StoredAffinity | undefined {
    const row = this.db
      .prepare<[string, string], { agent: string; context_id: string; alpha: number; beta: number; observations: number }>(
        "SELECT agent, context_id, alpha, beta, observations FROM agent_affinities WHERE agent = ? AND context_id = ?",
      )
      .get(agent, contextId);
    return row
      ? { agent: row.agent, contextId: row.context_id, alpha: row.alpha, beta: row.beta, observations: row.observations }
      : undefined;
  }

  /** An agent's record over every context: the sums of its Betas' evidence (what a new context's prior is scaled from). */
  allContexts(agent: string): StoredAffinity | undefined {
    const row = this.db
      .prepare("SELECT sum(alpha) AS alpha, sum(beta) AS beta, sum(observations) AS observations FROM agent_affinities WHERE agent = ?")
      .get(agent) as {
      alpha: number | null;
      beta: number | null;
      observations: number | null;
    };
    return row.alpha === null || row.beta === null
      ? undefined
      : { agent, contextId: "*", alpha: row.alpha, beta: row.beta, observations: row.observations ?? 0 };
  }

  /** Decisions, newest first: those whose query or reasoning mentions `pattern` when one is given. */
  history(options: { pattern?: string; limit: number }): RoutingDecision[] {
    const like = options.pattern ? `%${options.pattern.replace(/[\\%_]/g, "\\$&")}%` : undefined;
    const rows = (
      like
        ? this.db
            .prepare(
              "SELECT * FROM routing_decisions WHERE user_query LIKE ? ESCAPE '\\' OR reasoning LIKE ? ESCAPE '\\' ORDER BY created_at DESC LIMIT ?",
            )
            .all(like, like, options.limit)
        : this.db.prepare("SELECT * FROM routing_decisions ORDER BY created_at DESC LIMIT ?").all(options.limit)
    ) as DecisionRow[];
    return rows.map(toDecision);
  }
}

function toDecision(row: DecisionRow): RoutingDecision {
  return {
    id: row.id,
    sessionId: row.session_id,
    turnNumber: row.turn_number,
    userQuery: row.user_query,
    selectedAgent: row.selected_agent,
    confidence: row.confidence,
    reasoning: row.reasoning,
    contextId: row.context_id,
    routedSessionId: row.routed_session_id,
    outcome: row.outcome,
    createdAt: row.created_at,
  };
}
