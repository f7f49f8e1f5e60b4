import stringWidth from "string-width";
import { truncate } from "../../format/truncate.js";

export { truncate };

/** Small text helpers shared by the components. */

export function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return truncate(line.trimEnd(), max);
}

/** 12,345 → "12.3k"; 1,234,567 → "1.2M". */
export function compactNumber(value: number): string {
  if (value < 1_000) return String(Math.round(value));
  if (value < 1_000_000) return `${trimZero((value / 1_000).toFixed(value < 10_000 ? 1 : 0))}k`;
  return `${trimZero((value / 1_000_000).toFixed(1))}M`;
}

function trimZero(text: string): string {
  return text.replace(/\.0$/, "");
}

/** Seconds as a running timer shows them: `7s`, `2m 05s`, `1h 02m`. */
export function formatElapsed(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/**
 * Text broken into lines of at most `width` columns, between words (a word
 * wider than that is cut). Ink's own wrapping starts the next line with the
 * space it broke at, which shifts a column of descriptions by one.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const joined = line ? `${line} ${word}` : word;
    if (stringWidth(joined) <= width) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (stringWidth(line) > width && width > 0) {
      const cut = [...line].reduce((kept, character) => (stringWidth(kept + character) <= width ? kept + character : kept), "");
      lines.push(cut);
      line = line.slice(cut.length);
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}
