import { diffArrays } from "diff";
import { maskSecrets } from "../security/secrets.js";

/**
 * A checkpoint keeps a file's bytes with its secrets masked, and gets them
 * back from the file as it is when the checkpoint is restored: the lines
 * that held secrets are seldom the lines an agent edited, so they are
 * usually still there, word for word.
 *
 * Files are handled as Latin-1 text, one character a byte: the secret
 * patterns are ASCII, so masking changes only the secret values and every
 * other byte (invalid UTF-8, binary, CRLF) stays exactly as it was. Masking
 * keeps the line structure (`maskSecrets` promises it), so the masked and
 * the real lines of a file correspond one to one.
 */

const MARKER = /\[REDACTED:[A-Za-z0-9_-]+\]/;

/** The bytes with their secrets masked; the same Buffer when there was nothing to mask. */
export function maskedBytes(bytes: Buffer): Buffer {
  const text = bytes.toString("latin1");
  const masked = maskSecrets(text);
  return masked.findings.length === 0 ? bytes : Buffer.from(masked.text, "latin1");
}

/** True when the stored bytes hold a mask marker (what a restore must fill in). */
export function holdsMaskMarkers(bytes: Buffer): boolean {
  return MARKER.test(bytes.toString("latin1"));
}

/** A masked line: its number and its text (secret values shown as markers). */
export interface UnfilledLine {
  line: number;
  text: string;
}

/** The lines of stored bytes that hold a mask marker. */
export function maskedLinesOf(masked: Buffer): UnfilledLine[] {
  const lines = masked.toString("latin1").split("\n");
  return lines.flatMap((text, index) => (MARKER.test(text) ? [unfilled(lines, index)] : []));
}

export type FillResult = { bytes: Buffer } | { unfilled: UnfilledLine[] };

/**
 * The masked bytes with each line that holds a marker replaced by the
 * current file's line that masks to exactly the same text, where a line
 * alignment of the two masked files (a diff, so order and context count)
 * pairs them. A masked line left unpaired (its line was edited or removed
 * since) is reported. The caller verifies the result against the
 * fingerprint of the original bytes: a pairing with another secret of the
 * same shape is caught there.
 */
export function fillMaskedLines(masked: Buffer, current: Buffer): FillResult {
  const before = masked.toString("latin1").split("\n");
  const currentLines = current.toString("latin1").split("\n");
  const currentMasked = maskSecrets(current.toString("latin1")).text.split("\n");
  const needed = before.flatMap((text, index) => (MARKER.test(text) ? [index] : []));
  if (currentMasked.length !== currentLines.length) return { unfilled: needed.map((index) => unfilled(before, index)) };
  const pairs = alignedLines(before, currentMasked);
  const filled = [...before];
  const missing: UnfilledLine[] = [];
  for (const index of needed) {
    const partner = pairs.get(index);
    if (partner === undefined) missing.push(unfilled(before, index));
    else filled[index] = currentLines[partner] as string;
  }
  return missing.length > 0 ? { unfilled: missing } : { bytes: Buffer.from(filled.join("\n"), "latin1") };
}

/** Line i of `a` → line j of `b`, for the lines a diff finds in common. */
function alignedLines(a: string[], b: string[]): Map<number, number> {
  const pairs = new Map<number, number>();
  let i = 0;
  let j = 0;
  for (const part of diffArrays(a, b)) {
    const count = part.count ?? part.value.length;
    if (part.added) j += count;
    else if (part.removed) i += count;
    else for (let k = 0; k < count; k++) pairs.set(i++, j++);
  }
  return pairs;
}

function unfilled(lines: string[], index: number): UnfilledLine {
  return { line: index + 1, text: Buffer.from(lines[index] as string, "latin1").toString("utf8") };
}
