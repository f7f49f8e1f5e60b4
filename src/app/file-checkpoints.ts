import { fileDiff } from "../agent/tools/edit-file.js";
import { readRegularFile } from "../files/regular-file.js";
import { maskSecrets } from "../security/secrets.js";
import type { CheckpointRepository, FileCheckpoint } from "../store/checkpoint-repository.js";
import type { CheckpointFingerprints } from "./checkpoint-fingerprint.js";
import { maskedBytes } from "./checkpoint-masking.js";
import { applyRestore, planRestore, type RestorePlan } from "./checkpoint-restore.js";

/** What an agent write did to one file, as the write tools report it. */
export interface FileWrite {
  /** The real path written. */
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
  /** Files that cannot be restored, and why (now a link, secrets that cannot be filled in): never written, even when forced. */
  refused: Array<{ path: string; reason: string }>;
}

/** One prompt's edits, as /rewind lists them. */
export interface EditGroup {
  promptTurn: number;
  files: string[];
}

/** What a file is now, as far as /diff shows it: its text with secrets masked; null when it is not a readable regular file. */
function currentText(path: string): string | null {
  try {
    return maskSecrets(readRegularFile(path, { noFollow: true }).toString("utf8")).text;
  } catch {
    return null;
  }
}

/**
 * Checkpoints of one session's file edits: every agent write keeps the bytes
 * it replaced, in the store, with their secrets masked. /undo restores the
 * files the last prompt's edits touched byte for byte, /rewind those of
 * every prompt after a chosen one, and /diff shows what the session changed.
 * A file changed since the agent wrote it (by the user, an editor, a
 * command) stops the restore: nothing is overwritten that the checkpoints do
 * not know. A file that became a link, or whose masked secrets cannot be
 * filled in exactly, is never written (see `planRestore`).
 */
export class FileCheckpoints {
  constructor(
    private readonly repository: CheckpointRepository,
    private readonly sessionId: string,
    private readonly fingerprints: CheckpointFingerprints,
  ) {
    // Raw bytes an older Sylk stored are masked now (a no-op once done: the partial index is empty).
    repository.protectRawCheckpoints((before) => ({ before: maskedBytes(before), beforeFingerprint: fingerprints.of(before) }));
  }

  record(promptTurn: number, toolUseId: string, write: FileWrite): void {
    this.repository.record({
      sessionId: this.sessionId,
      promptTurn,
      toolUseId,
      path: write.shown,
      absolute: write.absolute,
      before: write.before && maskedBytes(write.before),
      beforeFingerprint: write.before && this.fingerprints.of(write.before),
      afterHash: this.fingerprints.of(write.after),
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
    return last
      ? this.restore(
          this.live().filter((checkpoint) => checkpoint.promptTurn === last.promptTurn),
          force,
        )
      : { promptTurns: [], restored: [], conflicts: [], refused: [] };
  }

  /** Takes back the edits of every prompt after `promptTurn` (0: all of the session's). */
  rewindTo(promptTurn: number, force = false): RestoreResult {
    return this.restore(
      this.live().filter((checkpoint) => checkpoint.promptTurn > promptTurn),
      force,
    );
  }

  /**
   * The session's changes to each file it touched: its first checkpoint
   * against the file now, both with secrets masked (the review stage sends
   * this diff to a model, and a masked line is not a change).
   */
  diff(): string {
    const first = new Map<string, FileCheckpoint>();
    for (const checkpoint of this.live()) if (!first.has(checkpoint.absolute)) first.set(checkpoint.absolute, checkpoint);
    return [...first.values()]
      .map((checkpoint) => {
        const before = checkpoint.before === null ? null : maskSecrets(checkpoint.before.toString("utf8")).text;
        const now = currentText(checkpoint.absolute);
        if (before === now) return "";
        return fileDiff(checkpoint.path, before ?? "", now ?? "", checkpoint.before === null ? "/dev/null" : undefined).diff;
      })
      .filter((diff) => diff !== "")
      .join("\n");
  }

  private live(): FileCheckpoint[] {
    return this.repository.forSession(this.sessionId).filter((checkpoint) => !checkpoint.undone);
  }

  /**
   * Each file goes back to its earliest checkpoint among these, once its
   * bytes are still what the latest of them left and it can be restored at
   * all; otherwise nothing moves. Forced, every file that can be restored
   * is, and the checkpoints are done with either way.
   */
  private restore(checkpoints: FileCheckpoint[], force: boolean): RestoreResult {
    const byFile = new Map<string, FileCheckpoint[]>();
    for (const checkpoint of checkpoints) byFile.set(checkpoint.absolute, [...(byFile.get(checkpoint.absolute) ?? []), checkpoint]);
    const plans = [...byFile.values()].map((history) => ({
      checkpoint: history[0] as FileCheckpoint,
      plan: planRestore(history, this.fingerprints),
    }));
    const conflicts = plans.filter(({ plan }) => plan.kind !== "refused" && plan.conflict).map(({ checkpoint }) => checkpoint.path);
    const refused = plans.flatMap(({ checkpoint, plan }) =>
      plan.kind === "refused" ? [{ path: checkpoint.path, reason: plan.reason }] : [],
    );
    const promptTurns = [...new Set(checkpoints.map((checkpoint) => checkpoint.promptTurn))];
    if ((conflicts.length > 0 || refused.length > 0) && !force) return { promptTurns, restored: [], conflicts, refused };
    const restored: string[] = [];
    for (const { checkpoint, plan } of plans) {
      if (!isRestorable(plan)) continue;
      applyRestore(checkpoint.absolute, plan);
      restored.push(checkpoint.path);
    }
    this.repository.markUndone(checkpoints.map((checkpoint) => checkpoint.id));
    return { promptTurns, restored, conflicts, refused };
  }
}

function isRestorable(plan: RestorePlan): plan is Exclude<RestorePlan, { kind: "refused" }> {
  return plan.kind !== "refused";
}
