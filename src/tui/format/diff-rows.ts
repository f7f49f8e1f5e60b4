/** One line of a unified diff as the diff view draws it. */
export type DiffRow =
  | { kind: "gap" }
  /** A file's name, where one diff covers several files. */
  | { kind: "file"; text: string }
  | { kind: "added" | "removed" | "context"; line: number; text: string }
  | { kind: "note"; text: string };

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const NEW_FILE = /^\+\+\+ (?:b\/)?(.+?)(?:\t.*)?$/;

/**
 * The rows of a unified diff, each line with its number: the new file's for
 * additions and context, the old file's for removals. File headers go (the
 * tool line names the file), unless `withFiles` (a diff of several files);
 * hunks are separated by a gap. A hunk holds as many lines as its header
 * counts: the lines after it are headers again, so the next file's
 * `--- /dev/null` is not taken for a removed line, while a removed `-- note`
 * inside a hunk stays one.
 */
export function diffRows(diff: string, withFiles = false): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of diff.replace(/\n$/, "").split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("+")) {
        rows.push({ kind: "added", line: newLine++, text: line.slice(1) });
        newLeft--;
      } else if (line.startsWith("-")) {
        rows.push({ kind: "removed", line: oldLine++, text: line.slice(1) });
        oldLeft--;
      } else if (line.startsWith("\\")) {
        rows.push({ kind: "note", text: line.slice(2) }); // "\ No newline at end of file"
      } else {
        rows.push({ kind: "context", line: newLine++, text: line.slice(1) });
        oldLine++;
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      if (rows.length > 0 && rows.at(-1)?.kind !== "file") rows.push({ kind: "gap" });
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[3]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      continue;
    }
    const file = NEW_FILE.exec(line);
    if (file && withFiles) rows.push({ kind: "file", text: file[1] ?? "" });
    // Anything else between hunks is a header: Index:, ===, ---, +++.
    if (line.startsWith("\\")) rows.push({ kind: "note", text: line.slice(2) }); // after a hunk's last line
  }
  return rows;
}
