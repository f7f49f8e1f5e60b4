import type { SqliteDatabase } from "./database.js";

/** A file as it was before one agent write, and a fingerprint of what the write left. */
export interface FileCheckpoint {
  id: number;
  sessionId: string;
  /** The turn of the user prompt the write answered: the unit /undo takes back. */
  promptTurn: number;
  toolUseId: string;
  /** Relative to the project root ('/'-separated), or absolute for an allowed directory outside it. */
  path: string;
  /** The real path written (links resolved when the write was made). */
  absolute: string;
  /** The bytes before the write, secret values masked; null when the write created the file. */
  before: Buffer | null;
  /** Fingerprint of the real bytes before the write (keyed: see `checkpointFingerprints`); null for a created file. */
  beforeFingerprint: string | null;
  /** Fingerprint of the bytes the write left, to tell whether the file changed since. */
  afterHash: string;
  createdAt: number;
  undone: boolean;
}

interface CheckpointRow {
  id: number;
  session_id: string;
  prompt_turn: number;
  tool_use_id: string;
  path: string;
  absolute_path: string;
  before_content: Buffer | null;
  before_fingerprint: string | null;
  after_hash: string;
  created_at: number;
  undone: number;
}

/** Checkpoints of the files agent writes touched (`file_checkpoints`): kept in the store, never in the user's git. */
export class CheckpointRepository {
  constructor(private readonly db: SqliteDatabase) {}

  record(checkpoint: Omit<FileCheckpoint, "id" | "createdAt" | "undone">): void {
    this.db
      .prepare(
        `INSERT INTO file_checkpoints (session_id, prompt_turn, tool_use_id, path, absolute_path, before_content, before_fingerprint, after_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        checkpoint.sessionId,
        checkpoint.promptTurn,
        checkpoint.toolUseId,
        checkpoint.path,
        checkpoint.absolute,
        checkpoint.before,
        checkpoint.beforeFingerprint,
        checkpoint.afterHash,
        Date.now(),
      );
  }

  /** The session's checkpoints, oldest first. */
  forSession(sessionId: string): FileCheckpoint[] {
    const rows = this.db.prepare<[string], CheckpointRow>("SELECT * FROM file_checkpoints WHERE session_id = ? ORDER BY id").all(sessionId);
    return rows.map((row) => ({
      id: row.id,
      sessionId: row.session_id,
      promptTurn: row.prompt_turn,
      toolUseId: row.tool_use_id,
      path: row.path,
      absolute: row.absolute_path,
      before: row.before_content,
      beforeFingerprint: row.before_fingerprint,
      afterHash: row.after_hash,
      createdAt: row.created_at,
      undone: row.undone === 1,
    }));
  }

  markUndone(ids: readonly number[]): void {
    const mark = this.db.prepare("UPDATE file_checkpoints SET undone = 1 WHERE id = ?");
    this.db.transaction(() => {
      for (const id of ids) mark.run(id);
    })();
  }

  /**
   * Rewrites the raw bytes older versions stored (content, no fingerprint)
   * as `protect` returns them, in one transaction; how many rows changed.
   */
  protectRawCheckpoints(protect: (before: Buffer) => { before: Buffer; beforeFingerprint: string }): number {
    const raw = this.db.prepare(
      "SELECT id, before_content FROM file_checkpoints WHERE before_fingerprint IS NULL AND before_content IS NOT NULL",
    );
    const update = this.db.prepare("UPDATE file_checkpoints SET before_content = ?, before_fingerprint = ? WHERE id = ?");
    return this.db.transaction(() => {
      const rows = raw.all() as Array<{ id: number; before_content: Buffer }>;
      for (const row of rows) {
        const protectedRow = protect(row.before_content);
        update.run(protectedRow.before, protectedRow.beforeFingerprint, row.id);
      }
      return rows.length;
    })();
  }
}
