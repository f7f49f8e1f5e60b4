import { queryTerms } from "../parsing/code-tokenizer.js";

const SNIPPET_LINES = 6;
const MAX_LINE_LENGTH = 200;

/**
 * A few lines of a chunk that show why it matched: the window around the
 * line containing the most query terms (the chunk's head when none does).
 * Terms are matched in the lower-cased line as written, so `token` is found
 * in `validateToken` and `tokens` alike, without tokenising every line: that
 * was most of a search's work after ranking, on every search.
 */
export function snippetFor(content: string, query: string): string {
  const lines = content.split("\n");
  const bestLine = bestMatchingLine(content, query);
  let from = Math.max(0, Math.min(bestLine - 1, lines.length - SNIPPET_LINES));
  // A blank line before the match is skipped, and the window shows one more line of the chunk instead.
  while (from < bestLine && (lines[from] as string).trim() === "") from++;
  return withoutBlankEdges(lines.slice(from, from + SNIPPET_LINES))
    .map((line) => (line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line))
    .join("\n");
}

/** The window without its blank first and last lines: a snippet that opens with an empty line reads as a gap in the listing. */
function withoutBlankEdges(lines: readonly string[]): readonly string[] {
  let start = 0;
  let end = lines.length;
  while (start < end - 1 && (lines[start] as string).trim() === "") start++;
  while (end > start + 1 && (lines[end - 1] as string).trim() === "") end--;
  return lines.slice(start, end);
}

/** The index of the line holding the most query terms (the first of equals; 0 when none holds any). */
function bestMatchingLine(content: string, query: string): number {
  const terms = queryTerms(query);
  let bestLine = 0;
  let bestMatches = 0;
  if (terms.length === 0) return bestLine;
  const lowered = content.toLowerCase().split("\n");
  for (let index = 0; index < lowered.length; index++) {
    const line = lowered[index] as string;
    let matches = 0;
    for (const term of terms) if (line.includes(term)) matches++;
    if (matches > bestMatches) {
      bestMatches = matches;
      bestLine = index;
    }
  }
  return bestLine;
}

/** Whole lines of a text, `fromLine` to `toLine` (1-based, inclusive) of `totalLines`. */
export interface Passage {
  text: string;
  fromLine: number;
  toLine: number;
  totalLines: number;
}

/**
 * The whole lines around the line that matches `query` best, as many as
 * `maxChars` holds (the line itself always, cut only when it alone is
 * longer): what a text too large to return whole gives a search. Lines are
 * added after and before the match in turn, so the match sits in the middle
 * unless the text ends first.
 */
export function passageAround(content: string, query: string, maxChars: number): Passage {
  const lines = content.split("\n");
  const best = bestMatchingLine(content, query);
  let from = best;
  let to = best;
  let chars = (lines[best] as string).length;
  for (let grew = true; grew; ) {
    grew = false;
    for (const next of [to + 1, from - 1]) {
      const line = lines[next];
      if (line === undefined || chars + line.length + 1 > maxChars) continue;
      chars += line.length + 1;
      if (next > to) to = next;
      else from = next;
      grew = true;
    }
  }
  const text = lines.slice(from, to + 1).join("\n");
  return { text: text.length > maxChars ? text.slice(0, maxChars) : text, fromLine: from + 1, toLine: to + 1, totalLines: lines.length };
}
