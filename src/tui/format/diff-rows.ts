/** One line of a unified diff as the diff view draws it. */
export type DiffRow =
  | { kind: "gap" }
  /** A file's name, where one diff covers several files. */
  | { kind: "file"; text: string }
  | { kind: "added" | "removed" | "context"; line: number; text: string }
  | { kind: "note"; text: string };

/**
 * The rows of a unified diff, each line with its number: the new file's for
 * additions and context, the old file's for removals. File headers go
 * (the tool line names the file); hunks are separated by a gap.
 */
export function diffRows(diff: string, withFiles = false): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      if (rows.length > 0 && rows.at(-1)?.kind !== "file") rows.push({ kind: "gap" });
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      inHunk = true;
      continue;
    }
    const file = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/.exec(line);
    if (file && (!inHunk || withFiles)) {
      if (withFiles) rows.push({ kind: "file", text: file[1] ?? "" });
      inHunk = false;
      continue;
    }
    if (!inHunk) continue; // Index:, ===, ---
    if (line.startsWith("+")) rows.push({ kind: "added", line: newLine++, text: line.slice(1) });
    else if (line.startsWith("-")) rows.push({ kind: "removed", line: oldLine++, text: line.slice(1) });
    else if (line.startsWith("\\")) rows.push({ kind: "note", text: line.slice(2) }); // "\ No newline at end of file"
    else {
      rows.push({ kind: "context", line: newLine++, text: line.slice(1) });
      oldLine++;
    }
  }
  return rows;
}
