import { getMeta, setMeta, type SqliteDatabase } from "../store/database.js";
import type { EntryRepository } from "../store/entry-repository.js";
import type { HandoffRepository } from "../store/handoff-repository.js";
import type { NewContentEntry } from "../store/content-types.js";
import type { UniversalContentStore } from "./universal-content-store.js";

/** `metadata.kind` of the `agent_message` entry each todo_write decision becomes. */
export const DECISION_KIND = "decision";

/** The meta flag set once the task lists written before decisions were entries have been copied. */
export const DECISIONS_BACKFILLED = "decision_entries_backfilled";

/** Who made a decision, and when in the session. */
export interface DecisionOrigin {
  sessionId: string;
  agentId: string;
  agentType: string;
  turnNumber: number;
}

export interface DecisionEntriesDeps {
  db: SqliteDatabase;
  entries: Pick<EntryRepository, "chronological">;
  handoffs: Pick<HandoffRepository, "taskListsWithDecisions" | "latestInstance">;
  contentStore: Pick<UniversalContentStore, "indexContents">;
}

class AlreadyBackfilled extends Error {}

/**
 * Decisions as content entries, so that they are searched like everything
 * else (search_decisions): each decision todo_write adds, and once, those in
 * the task lists of sessions recorded before.
 */
export class DecisionEntries {
  constructor(private readonly deps: DecisionEntriesDeps) {}

  async record(origin: DecisionOrigin, decisions: readonly string[], timestamp = Date.now()): Promise<void> {
    if (decisions.length === 0) return;
    await this.deps.contentStore.indexContents(decisions.map((decision) => decisionEntry(origin, decision, timestamp, {})));
  }

  /**
   * Copies the decisions of every task list that are not entries yet, the
   * first time it is called in a project's life; later calls do nothing.
   * Returns how many entries it wrote. Another process that got there first
   * wins: the flag is checked again in the transaction that writes.
   */
  async backfillOnce(): Promise<number> {
    if (getMeta(this.deps.db, DECISIONS_BACKFILLED)) return 0;
    const missing: NewContentEntry[] = [];
    for (const list of this.deps.handoffs.taskListsWithDecisions()) {
      const recorded = new Set(
        this.deps.entries
          .chronological({ sessionId: list.sessionId, contentTypes: ["agent_message"], metadataKinds: [DECISION_KIND] }, 10_000)
          .map((entry) => entry.content),
      );
      const origin = this.originOf(list.sessionId);
      for (const decision of new Set(list.decisions)) {
        if (!recorded.has(decision)) missing.push(decisionEntry(origin, decision, list.updatedAt, { backfilled: true }));
      }
    }
    try {
      await this.deps.contentStore.indexContents(missing, () => {
        if (getMeta(this.deps.db, DECISIONS_BACKFILLED)) throw new AlreadyBackfilled();
        setMeta(this.deps.db, DECISIONS_BACKFILLED, new Date().toISOString());
      });
    } catch (error) {
      if (error instanceof AlreadyBackfilled) return 0;
      throw error;
    }
    return missing.length;
  }

  /** The agent a session last recorded under (its last entry, else its latest instance); "unknown" when neither exists. */
  private originOf(sessionId: string): DecisionOrigin {
    const last = this.deps.entries.chronological({ sessionId }, 1, { latest: true })[0];
    if (last) return { sessionId, agentId: last.agentId, agentType: last.agentType, turnNumber: last.turnNumber };
    const instance = this.deps.handoffs.latestInstance(sessionId);
    if (instance) return { sessionId, agentId: instance.agentId, agentType: instance.agentType, turnNumber: 0 };
    return { sessionId, agentId: "unknown", agentType: "unknown", turnNumber: 0 };
  }
}

function decisionEntry(origin: DecisionOrigin, decision: string, timestamp: number, extra: Record<string, unknown>): NewContentEntry {
  return {
    sessionId: origin.sessionId,
    agentId: origin.agentId,
    agentType: origin.agentType,
    turnNumber: origin.turnNumber,
    contentType: "agent_message",
    content: decision,
    timestamp,
    metadata: { kind: DECISION_KIND, source: "todo_write", ...extra },
  };
}
