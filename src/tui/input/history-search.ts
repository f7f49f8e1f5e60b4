import type { PromptEntry } from "../../app/prompt-history.js";
import { collapse, type PromptBuffer } from "./pasted-text.js";

/** Ctrl-R: a reverse search through the prompts sent before, as in bash and zsh. */
export interface HistorySearch {
  readonly query: string;
  /** Index into the history of the match shown; undefined when nothing matches the query. */
  readonly match: number | undefined;
  /** Ctrl-R found nothing older than the match shown. */
  readonly exhausted: boolean;
  /** What the prompt held when the search began: cancelling brings it back. */
  readonly draft: PromptBuffer;
}

/** The newest entry before `before` holding `query` (case-insensitive); the empty query matches every entry. */
export function findOlder(entries: readonly PromptEntry[], query: string, before: number): number | undefined {
  const needle = query.toLowerCase();
  for (let index = Math.min(before, entries.length) - 1; index >= 0; index--) {
    if ((entries[index] as PromptEntry).text.toLowerCase().includes(needle)) return index;
  }
  return undefined;
}

export function startSearch(draft: PromptBuffer, entries: readonly PromptEntry[]): HistorySearch {
  return { query: "", match: findOlder(entries, "", entries.length), exhausted: false, draft };
}

/** Typing refines: the match shown stays while it still holds the longer query, else an older one is found. */
export function extendQuery(search: HistorySearch, entries: readonly PromptEntry[], typed: string): HistorySearch {
  const query = search.query + typed;
  const from = search.match === undefined ? entries.length : search.match + 1;
  return { ...search, query, match: findOlder(entries, query, from), exhausted: false };
}

/** Backspace in the query: the search starts again from the newest entry. */
export function shortenQuery(search: HistorySearch, entries: readonly PromptEntry[]): HistorySearch {
  const query = search.query.slice(0, -1);
  return { ...search, query, match: findOlder(entries, query, entries.length), exhausted: false };
}

/** Ctrl-R again: the next older match; at the oldest, the match stays and the search says so. */
export function searchOlder(search: HistorySearch, entries: readonly PromptEntry[]): HistorySearch {
  if (search.match === undefined) return search;
  const older = findOlder(entries, search.query, search.match);
  return older === undefined ? { ...search, exhausted: true } : { ...search, match: older, exhausted: false };
}

/** Enter or →: the match goes into the prompt (not sent); with no match the prompt is as it was. */
export function acceptSearch(search: HistorySearch, entries: readonly PromptEntry[]): PromptBuffer {
  const entry = search.match === undefined ? undefined : entries[search.match];
  return entry ? collapse(entry) : search.draft;
}
