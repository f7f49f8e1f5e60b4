import { renderReference, widestMarker } from "../context/context-reference.js";
import type { ContentType, ContextReference } from "../store/content-types.js";

/**
 * A knowledge agent's answer to a consultation (`ContextShareResponse`),
 * fitted into the caller's budget.
 * Pure: storing what did not fit is the caller's, through `storeOverflow`.
 */

/** `hot`: all sources were already in the agent's window; `warm`: found by searches in this consultation; `cold`: any came back from evicted content. */
export type CacheHint = "hot" | "warm" | "cold";

/** One shared piece of content (3.8 `entries`). */
export interface ShareEntry {
  id: string;
  content_type: ContentType;
  /** Where it came from: `path:a-b` for a file excerpt, `entry <id>` for a stored entry, the agent's id for the answer. */
  source: string;
  content: string;
  token_count: number;
  /** Cut to fit (at a line boundary); the whole entry is behind the response's reference. */
  partial?: boolean;
}

/** The reference holding what did not fit, rendered as its marker. */
export interface ShareReference {
  ref_id: string;
  content_ids: string[];
  marker: string;
}

export interface ContextShareResponse {
  request_id: string;
  source_agent_id: string;
  source_agent_type: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Milliseconds the consultation took. */
  duration: number;
  /** The answer first (`agent_message`), then the sources delivered, in the agent's order. */
  entries: ShareEntry[];
  references: ShareReference[];
  /** Tokens of `renderContextShare(response)` by the counter the response was fitted with. */
  total_tokens: number;
  /** True exactly when an offered entry (the answer or a source) is missing or cut; then all of them are behind `references`. */
  truncated: boolean;
  cache_hint: CacheHint;
  /** The agent's own estimate in [0, 1]; null: not stated. */
  confidence: number | null;
  /** The agent's estimate × (tokens delivered / tokens offered); null: not stated. */
  completeness: number | null;
}

export interface ContextShareInput {
  request_id: string;
  source_agent_id: string;
  source_agent_type: string;
  timestamp: number;
  duration: number;
  /** The knowledge agent's answer; its id must name a stored entry (it goes into the overflow reference when cut). */
  answer: { id: string; content: string };
  /** The resolved sources, in the agent's order; each id names a stored entry. */
  sources: readonly ShareEntry[];
  cache_hint: CacheHint;
  /** As the agent stated them (clamped here), or null. */
  confidence: number | null;
  completeness: number | null;
}

export type CountTokens = (text: string) => number;
/**
 * Stores the entries that were not delivered whole (the originals, in order)
 * as one `code_analysis` reference and returns it. Its id is budgeted as the
 * context manager's are (8 characters: see `widestMarker`).
 */
export type StoreOverflow = (entries: ShareEntry[]) => ContextReference;

/** The answer's share of the budget when there are sources and not everything fits. */
const ANSWER_SHARE = 0.4;
/** Budgets below this are raised to it (the floor of `max_tokens`): a header and a marker need room. */
export const MIN_SHARE_BUDGET = 200;

const integer = new Intl.NumberFormat("en-US");
const ANSWER_CUT_NOTE = "[The answer was cut to fit the budget; the whole answer is behind the reference below.]";
const REFERENCE_INTRO = "Not shown here, whole and byte for byte behind this reference:";
const FILE_SOURCE = /^(.*):(\d+)-(\d+)$/;

/**
 * Builds the response within `budget` tokens (as `countTokens` counts the
 * rendered text, assumed not to shrink when text grows): the header; the
 * answer, clipped to 40 % of the budget when there are sources and not
 * everything fits; whole sources in order while they fit, the first cut at a
 * line boundary when it alone is larger than the room; a marker for the rest.
 */
export function fitContextShare(
  input: ContextShareInput,
  budget: number,
  countTokens: CountTokens,
  storeOverflow: StoreOverflow,
): ContextShareResponse {
  const limit = Math.max(MIN_SHARE_BUDGET, Math.floor(budget));
  const confidence = clampUnit(input.confidence);
  const statedCompleteness = clampUnit(input.completeness);
  // Widest header the final one can be: its token figure at most `limit`, "false" the longer flag.
  const probeHeader = headerLine({ ...input, confidence, completeness: statedCompleteness, total_tokens: limit, truncated: false });
  const probeMarkers = [widestMarker()];
  const fits = (entries: readonly ShareEntry[], marker: boolean) =>
    countTokens(layout(probeHeader, entries, marker ? probeMarkers : [])) <= limit;

  const answer: ShareEntry = {
    id: input.answer.id,
    content_type: "agent_message",
    source: input.source_agent_id,
    content: input.answer.content,
    token_count: countTokens(input.answer.content),
  };
  const offered = [answer, ...input.sources];
  let delivered: ShareEntry[];
  if (fits(offered, false)) {
    delivered = offered;
  } else {
    const answerCap = input.sources.length > 0 ? Math.floor(limit * ANSWER_SHARE) : limit;
    const answerFits = (entry: ShareEntry) => countTokens(answerBlock(entry)) <= answerCap && fits([entry], true);
    delivered = [answerFits(answer) ? answer : clipAnswer(answer, answerFits, countTokens)];
    for (const [index, source] of input.sources.entries()) {
      if (fits([...delivered, source], true)) {
        delivered.push(source);
        continue;
      }
      if (index === 0) {
        const cut = cutAtLine(source, (entry) => fits([...delivered, entry], true), countTokens);
        if (cut) delivered.push(cut);
      }
      break;
    }
  }

  const whole = new Set(delivered.filter((entry) => !entry.partial));
  const overflow = offered.filter((entry) => !whole.has(entry));
  const references: ShareReference[] = [];
  if (overflow.length > 0) {
    const reference = storeOverflow(overflow);
    references.push({ ref_id: reference.id, content_ids: [...reference.contentIds], marker: renderReference(reference) });
  }
  const offeredTokens = offered.reduce((sum, entry) => sum + countTokens(entry.content), 0);
  const deliveredTokens = delivered.reduce((sum, entry) => sum + countTokens(entry.content), 0);
  const response: ContextShareResponse = {
    request_id: input.request_id,
    source_agent_id: input.source_agent_id,
    source_agent_type: input.source_agent_type,
    timestamp: input.timestamp,
    duration: input.duration,
    entries: delivered,
    references,
    total_tokens: 0,
    truncated: overflow.length > 0,
    cache_hint: input.cache_hint,
    confidence,
    completeness:
      statedCompleteness === null ? null : clampUnit(statedCompleteness * (offeredTokens === 0 ? 1 : deliveredTokens / offeredTokens)),
  };
  // The figure is part of the text it counts: settle it (its digits change at most once or twice).
  for (let round = 0; round < 4; round++) {
    const tokens = countTokens(renderContextShare(response));
    if (tokens === response.total_tokens) break;
    response.total_tokens = tokens;
  }
  return response;
}

/** The tool result: header line, answer, fenced excerpts labelled `path:a-b` or `entry <id>`, reference markers. */
export function renderContextShare(response: ContextShareResponse): string {
  return layout(
    headerLine(response),
    response.entries,
    response.references.map((reference) => reference.marker),
  );
}

type HeaderFields = Pick<
  ContextShareResponse,
  | "request_id"
  | "source_agent_id"
  | "source_agent_type"
  | "duration"
  | "total_tokens"
  | "truncated"
  | "cache_hint"
  | "confidence"
  | "completeness"
>;

function headerLine(fields: HeaderFields): string {
  const figure = (value: number | null) => (value === null ? "not stated" : value.toFixed(2));
  return [
    `[CONTEXT SHARE request ${fields.request_id}`,
    `from ${fields.source_agent_id} (${fields.source_agent_type})`,
    `${integer.format(fields.total_tokens)} tokens`,
    `truncated: ${fields.truncated}`,
    `cache: ${fields.cache_hint}`,
    `confidence (agent's estimate): ${figure(fields.confidence)}`,
    `completeness (agent's estimate × share delivered): ${figure(fields.completeness)}`,
    `${(fields.duration / 1000).toFixed(1)} s]`,
  ].join(" · ");
}

function layout(header: string, entries: readonly ShareEntry[], markers: readonly string[]): string {
  const [answer, ...sources] = entries;
  const parts = [header];
  if (answer) parts.push(answerBlock(answer));
  for (const source of sources) parts.push(fenced(source));
  if (markers.length > 0) parts.push([REFERENCE_INTRO, ...markers].join("\n"));
  return parts.join("\n\n");
}

function answerBlock(answer: ShareEntry): string {
  return answer.partial ? `${answer.content}\n${ANSWER_CUT_NOTE}` : answer.content;
}

function fenced(entry: ShareEntry): string {
  const longestRun = Math.max(2, ...[...entry.content.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longestRun + 1);
  const label = entry.partial ? `${entry.source} (partial: cut to fit; the whole entry is behind the reference below)` : entry.source;
  return `${fence}${label}\n${entry.content}${entry.content.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** The entry's lines with their terminators. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** The longest prefix `keep` of `count` items for which `ok(keep)` holds (0 when none does), assuming monotony. */
function longestPrefix(count: number, ok: (keep: number) => boolean): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (ok(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

function partialEntry(entry: ShareEntry, content: string, countTokens: CountTokens, keptLines?: number): ShareEntry {
  let source = entry.source;
  const range = keptLines === undefined ? null : FILE_SOURCE.exec(entry.source);
  if (range && keptLines !== undefined) source = `${range[1]}:${range[2]}-${Number(range[2]) + keptLines - 1}`;
  return { ...entry, source, content, token_count: countTokens(content), partial: true };
}

/** The first lines of a source that fit, or null when not even its first line does. */
function cutAtLine(entry: ShareEntry, ok: (entry: ShareEntry) => boolean, countTokens: CountTokens): ShareEntry | null {
  const lines = linesOf(entry.content);
  const candidate = (keep: number) => partialEntry(entry, lines.slice(0, keep).join(""), countTokens, keep);
  const keep = longestPrefix(lines.length - 1, (count) => count > 0 && ok(candidate(count)));
  return keep > 0 ? candidate(keep) : null;
}

/** The answer cut at a line boundary, or within its first line when no whole line fits. */
function clipAnswer(answer: ShareEntry, ok: (entry: ShareEntry) => boolean, countTokens: CountTokens): ShareEntry {
  const lines = linesOf(answer.content);
  const byLines = (keep: number) => partialEntry(answer, lines.slice(0, keep).join("").replace(/\n$/, ""), countTokens);
  const keep = longestPrefix(lines.length - 1, (count) => count > 0 && ok(byLines(count)));
  if (keep > 0) return byLines(keep);
  const characters = Array.from(lines[0] ?? "");
  const byCharacters = (count: number) => partialEntry(answer, characters.slice(0, count).join(""), countTokens);
  return byCharacters(longestPrefix(characters.length, (count) => ok(byCharacters(count))));
}

function clampUnit(value: number | null): number | null {
  if (value === null || Number.isNaN(value)) return null;
  return Math.min(1, Math.max(0, value));
}
