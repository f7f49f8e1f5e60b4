import { queryTerms, tokenize } from "./code-tokenizer.js";

const SNIPPET_LINES = 6;
const MAX_LINE_LENGTH = 200;

/**
 * A few lines of a chunk that show why it matched: the window around the
 * line sharing the most query terms (the chunk's head when none does).
 */
export function snippetFor(content: string, query: string): string {
  const lines = content.split("\n");
  const terms = new Set(queryTerms(query));
  let bestLine = 0;
  let bestMatches = 0;
  if (terms.size > 0) {
    // Tokens are lower-cased pieces of a line, so a line whose lower-cased
    // text contains no query term has no match: most lines skip tokenising.
    const lowered = content.toLowerCase().split("\n");
    const termList = [...terms];
    const mayMatch = (index: number) => termList.some((term) => lowered[index]?.includes(term));
    lines.forEach((line, index) => {
      if (!mayMatch(index)) return;
      let matches = 0;
      for (const token of new Set(tokenize(line))) if (terms.has(token)) matches++;
      if (matches > bestMatches) {
        bestMatches = matches;
        bestLine = index;
      }
    });
  }
  const from = Math.max(0, Math.min(bestLine - 1, lines.length - SNIPPET_LINES));
  return lines
    .slice(from, from + SNIPPET_LINES)
    .map((line) => (line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line))
    .join("\n");
}
