import { queryTerms, tokenize, tokenizePath } from "../../parsing/code-tokenizer.js";
import type { PrefetchCandidate } from "./tiered-searcher.js";

/**
 * Words of small talk: a prompt made only of these ("hello", "thanks, ok")
 * asks for nothing in the project, and nothing is fetched for it.
 */
const SMALL_TALK = new Set([
  "hi",
  "hello",
  "hey",
  "thanks",
  "thank",
  "thx",
  "ok",
  "okay",
  "yes",
  "yeah",
  "yep",
  "no",
  "nope",
  "sure",
  "great",
  "cool",
  "nice",
  "good",
  "morning",
  "evening",
  "bye",
  "please",
  "continue",
  "go",
  "on",
  "done",
  "perfect",
  "fine",
  "lgtm",
]);

/** A prompt that asks for nothing the project holds. */
export function isSmallTalk(query: string): boolean {
  const words = query.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  return words.length > 0 && words.every((word) => SMALL_TALK.has(word));
}

/** A prompt that asks about earlier sessions: only then is their history searched. */
const ASKS_FOR_HISTORY =
  /\b(previous|earlier|last|other|past|prior)\s+(session|conversation|chat)s?\b|\b(yesterday|last time|last week)\b/i;

export function asksForHistory(query: string): boolean {
  return ASKS_FOR_HISTORY.test(query);
}

/**
 * Whether a candidate holds enough of the query to be worth the window:
 * with two or more query terms, at least two of them; with one, the term
 * must name what the chunk defines or where it lives (a symbol, a path),
 * not merely occur in it. A single common word ("hello" in test fixtures)
 * matched everything it occurs in with full confidence.
 */
export function hasEnoughEvidence(candidate: PrefetchCandidate, query: string): boolean {
  const terms = queryTerms(query);
  if (terms.length === 0) return false;
  if (terms.length >= 2) {
    const present = new Set(tokenize(`${candidate.path ?? ""} ${candidate.content}`, { keepStopWords: true }));
    return terms.filter((term) => present.has(term)).length >= 2;
  }
  const [term] = terms as [string];
  const named = new Set([
    ...(candidate.symbols ?? []).flatMap((symbol) => tokenize(symbol, { keepStopWords: true })),
    ...(candidate.path ? tokenizePath(candidate.path) : []),
  ]);
  return named.has(term);
}
