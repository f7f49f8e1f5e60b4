import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileDiff } from "../agent/tools/edit-file.js";
import type { CheckpointRepository, FileCheckpoint } from "../store/checkpoint-repository.js";

/** What an agent write did to one file, as the write tools report it. */
export interface FileWrite {
  absolute: string;
  /** The path as the tools show it. */
  shown: string;
  before: Buffer | null;
  after: Buffer | string;
}

export interface RestoreResult {
  /** The prompt turns whose edits were taken back. */
  promptTurns: number[];
  restored: string[];
  /** Files changed since the agent wrote them: nothing was restored, so nothing of the user's is lost. */
  conflicts: string[];
}

/** One prompt's edits, as /rewind lists them. */
export interface EditGroup {
  promptTurn: number;
  files: string[];
}

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

function currentBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/**
 * Checkpoints of one session's file edits: every agent write keeps the bytes
 * it replaced, in the store. /undo restores the files the last prompt's
 * edits touched byte for byte, /rewind those of every prompt after a chosen
 * one, and /diff shows what the session changed. A file changed since the
 * agent wrote it (by the user, an editor, a command) stops the restore:
 * nothing is overwritten that the checkpoints do not know.
 */
export class FileCheckpoints {
  constructor(
    private readonly repository: CheckpointRepository,
    private readonly sessionId: () => string,
  ) {}

  record(promptTurn: number, toolUseId: string, write: FileWrite): void {
    this.repository.record({
      sessionId: this.sessionId(),
      promptTurn,
      toolUseId,
      path: write.shown,
      absolute: write.absolute,
      before: write.before,
      afterHash: sha256(write.after),
    });
  }

  /** The prompts whose edits can still be taken back, oldest first. */
  groups(): EditGroup[] {
    const groups = new Map<number, Set<string>>();
    for (const checkpoint of this.live()) {
      const files = groups.get(checkpoint.promptTurn) ?? new Set<string>();
      files.add(checkpoint.path);
      groups.set(checkpoint.promptTurn, files);
    }
    return [...groups].map(([promptTurn, files]) => ({ promptTurn, files: [...files] }));
  }

  /** Takes back the last prompt's edits. */
  undoLast(force = false): RestoreResult {
    const last = this.groups().at(-1);
    return last ? this.restore(this.live().filter((checkpoint) => checkpoint.promptTurn === last.promptTurn), force) : { promptTurns: [], restored: [], conflicts: [] };
  }

  /** Takes back the edits of every prompt after `promptTurn` (0: all of the session's). */
  rewindTo(promptTurn: number, force = false): RestoreResult {
    return this.restore(this.live().filter((checkpoint) => checkpoint.promptTurn > promptTurn), force);
  }

  /** The session's changes to each file it touched: its first checkpoint against the file now. */
  diff(): string {
    const first = new Map<string, FileCheckpoint>();
    for (const checkpoint of this.live()) if (!first.has(checkpoint.absolute)) first.set(checkpoint.absolute, checkpoint);
    return [...first.values()]
      .map((checkpoint) => {
        const now = currentBytes(checkpoint.absolute);
        if ((checkpoint.before ?? Buffer.alloc(0)).equals(now ?? Buffer.alloc(0)) && (checkpoint.before === null) === (now === null)) return "";
        return fileDiff(checkpoint.path, checkpoint.before?.toString("utf8") ?? "", now?.toString("utf8") ?? "", checkpoint.before === null ? "/dev/null" : undefined).diff;
      })
      .filter((diff) => diff !== "")
      .join("\n");
  }

  private live(): FileCheckpoint[] {
    return this.repository.forSession(this.sessionId()).filter((checkpoint) => !checkpoint.undone);
  }

  /**
   * Each file goes back to its earliest checkpoint among these, once its
   * bytes are still what the latest of them left; otherwise nothing moves.
   */
  private restore(checkpoints: FileCheckpoint[], force: boolean): RestoreResult {
    const byFile = new Map<string, FileCheckpoint[]>();
    for (const checkpoint of checkpoints) byFile.set(checkpoint.absolute, [...(byFile.get(checkpoint.absolute) ?? []), checkpoint]);
    const conflicts = [...byFile.values()]
      .filter((history) => {
        const now = currentBytes(history[0]!.absolute);
        return now === null || sha256(now) !== history.at(-1)!.afterHash;
      })
      .map((history) => history[0]!.path);
    const promptTurns = [...new Set(checkpoints.map((checkpoint) => checkpoint.promptTurn))];
    if (conflicts.length > 0 && !force) return { promptTurns, restored: [], conflicts };
    const restored: string[] = [];
    for (const history of byFile.values()) {
      const earliest = history[0]!;
      if (earliest.before === null) rmSync(earliest.absolute, { force: true });
      else writeFileSync(earliest.absolute, earliest.before);
      restored.push(earliest.path);
    }
    this.repository.markUndone(checkpoints.map((checkpoint) => checkpoint.id));
    return { promptTurns, restored, conflicts: force ? conflicts : [] };
  }
}
