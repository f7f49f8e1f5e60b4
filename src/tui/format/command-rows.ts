import stringWidth from "string-width";
import { visibleText } from "../../format/visible-text.js";

/** A command as the approval dialog draws it. */
export interface CommandRows {
  /** Its lines, control characters shown escaped, each cut into rows the dialog's width. */
  rows: string[];
  /** How many lines the command has (a multi-line command is flagged). */
  lines: number;
  /** Something in it was shown as an escape (the command is flagged). */
  escaped: boolean;
}

/**
 * The rows of a command for a dialog `width` columns wide. Line breaks are
 * real (multi-line commands exist) but nothing else can move the cursor: a
 * `\r` or an escape sequence is shown, never acted on, so no line can
 * overwrite an earlier one. The dialog pages through the rows itself instead
 * of letting the terminal wrap them, so a command taller than the screen
 * cannot push its beginning out of sight.
 */
export function commandRows(command: string, width: number): CommandRows {
  const { text, escaped } = visibleText(command, { tabs: "escape" });
  const lines = text.split("\n");
  return { rows: lines.flatMap((line) => cutToWidth(line, Math.max(1, width))), lines: lines.length, escaped };
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The line in pieces at most `width` columns wide, measured as Ink measures them; an empty line is one empty row. */
export function cutToWidth(line: string, width: number): string[] {
  if (stringWidth(line) <= width) return [line];
  const rows: string[] = [];
  let row = "";
  let used = 0;
  for (const { segment } of graphemes.segment(line)) {
    const columns = stringWidth(segment);
    if (used + columns > width && row !== "") {
      rows.push(row);
      row = "";
      used = 0;
    }
    row += segment;
    used += columns;
  }
  rows.push(row);
  return rows;
}
