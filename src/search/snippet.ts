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
  const terms = queryTerms(query);
  let bestLine = 0;
  let bestMatches = 0;
  if (terms.length > 0) {
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
  }
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
