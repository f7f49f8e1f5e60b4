import type { SqliteDatabase } from "./database.js";

/** The saved state: JSON sufficient statistics, and the last observation-log line they include. */
export interface SavedLearningState {
  state: string;
  appliedSequence: number;
}

/**
 * Self-tuning retrieval's learned state in the project's `vector.db`: one
 * row, replaced whole. The log position is saved with the state in the same
 * statement, so a restart replays exactly the episodes the state lacks.
 */
export class LearningRepository {
  constructor(private readonly db: SqliteDatabase) {}

  load(): SavedLearningState | undefined {
    const row = this.db
      .prepare<[], SavedLearningState>("SELECT state, applied_sequence AS appliedSequence FROM learning_state WHERE id = 1")
      .get();
    return row ? { state: row.state, appliedSequence: row.appliedSequence } : undefined;
  }

  save(state: string, appliedSequence: number): void {
    this.db
      .prepare(
        `INSERT INTO learning_state (id, state, applied_sequence, updated_at) VALUES (1, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, applied_sequence = excluded.applied_sequence, updated_at = excluded.updated_at`,
      )
      .run(state, appliedSequence, Date.now());
  }

  /** Runs `work` holding the database's write lock (BEGIN IMMEDIATE): one process at a time reads, changes and saves the state. */
  withWriteLock<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  clear(): void {
    this.db.prepare("DELETE FROM learning_state").run();
  }
}
