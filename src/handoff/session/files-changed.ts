import { diffLines } from "diff";
import type { HandoffRepository } from "../../store/handoff-repository.js";

/** Larger files are counted by size alone: a line diff of megabytes on every write is not worth its time. */
const MAX_DIFF_BYTES = 512 * 1024;

/**
 * One write of `write_file` or `edit_file`, as the prepared context lists
 * it: path, created or modified, and the lines added and removed (summed
 * over the session's writes to that path).
 */
export function recordFileChange(
  repository: HandoffRepository,
  sessionId: string,
  write: { shown: string; before: Buffer | null; after: Buffer | string },
): void {
  const after = typeof write.after === "string" ? write.after : write.after.toString("utf8");
  const before = write.before?.toString("utf8") ?? "";
  const { added, removed } = countChangedLines(before, after);
  repository.recordFileChange(sessionId, {
    path: write.shown,
    action: write.before === null ? "create" : "modify",
    linesAdded: added,
    linesRemoved: removed,
  });
}

function countChangedLines(before: string, after: string): { added: number; removed: number } {
  if (before.length + after.length > MAX_DIFF_BYTES) return { added: lineCount(after), removed: lineCount(before) };
  let added = 0;
  let removed = 0;
  for (const part of diffLines(before, after)) {
    if (part.added) added += part.count ?? lineCount(part.value);
    else if (part.removed) removed += part.count ?? lineCount(part.value);
  }
  return { added, removed };
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
