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
  const from = Math.max(0, Math.min(bestLine - 1, lines.length - SNIPPET_LINES));
  return lines
    .slice(from, from + SNIPPET_LINES)
    .map((line) => (line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line))
    .join("\n");
}
