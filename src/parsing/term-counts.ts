/**
 * What a text is about, as counts of its code-aware tokens: a chunk, a
 * history entry, a free text. The full-text index stems and buckets these
 * counts (`termsFromCounts`) and the built-in embedder hashes them, so both
 * read a text the same way and neither imports the other.
 */
import { tokenize, tokenizePath } from "./code-tokenizer.js";

/** Path terms count as if the path were written this many times in the text. */
export const PATH_TERM_REPEAT = 3;

export type TermCounts = Map<string, number>;

/**
 * What a chunk is about, as term counts: its text, the symbols it defines,
 * and its file's path (weighing as if written three times, so a query naming
 * a directory or file finds it). Both the full-text index and the built-in
 * embedder read a chunk through these counts. `pathTokens` is
 * `tokenizePath(path)`, computed once per file by the caller.
 */
export function chunkTermCounts(pathTokens: readonly string[], symbols: readonly string[], contentTokens: readonly string[]): TermCounts {
  const counts: TermCounts = new Map();
  for (const token of contentTokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  for (const symbol of symbols) for (const token of tokenize(symbol)) counts.set(token, (counts.get(token) ?? 0) + 1);
  for (const token of pathTokens) counts.set(token, (counts.get(token) ?? 0) + PATH_TERM_REPEAT);
  return counts;
}

/** Term counts of a history entry (prompt, response, tool call or result) and the files it names. */
export function entryTermCounts(content: string, relatedFiles: readonly string[] = []): TermCounts {
  const counts: TermCounts = new Map();
  for (const token of tokenize(content)) counts.set(token, (counts.get(token) ?? 0) + 1);
  for (const path of relatedFiles) for (const token of tokenizePath(path)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/** Term counts of a free text (a query). */
export function textTermCounts(text: string): TermCounts {
  const counts: TermCounts = new Map();
  for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
