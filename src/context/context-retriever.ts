import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ContentEntry, ContentFilters } from "../store/content-types.js";
import { passageAround } from "../search/snippet.js";
import { estimateTokens } from "../tokens/estimate-tokens.js";
import { candidateCount, NO_WINDOW, recallOrder, type WindowView } from "./recall-order.js";

export type RetrievalSource = "reference" | "search" | "direct";

/** What to bring back: a reference, entries by id, or a search, within a token budget. */
export interface RetrievalRequest {
  query?: string;
  refId?: string;
  contentIds?: string[];
  filters?: ContentFilters;
  maxTokens: number;
  /** Also bring the entries one step up or down the parent chain (a call with its result, a result with its call). */
  includeRelated?: boolean;
  /** The asking agent's window: a search leaves out the calling message and ranks what the window holds last. */
  window?: WindowView;
}

/** What came back, and whether the budget cut it. */
export interface RetrievalResult {
  entries: ContentEntry[];
  totalTokens: number;
  truncated: boolean;
  query: string;
  source: RetrievalSource;
  /** The reference expanded, when `source` is `reference`. */
  refId?: string;
  /** Set when an entry did not fit whole and only part of it is returned: its beginning, or the lines `partialLines` names. */
  partialEntryId?: string;
  /** The lines of the partial entry that came back, when they are the ones around a search's match rather than its beginning. */
  partialLines?: { fromLine: number; toLine: number; totalLines: number };
  /** The entries a search's words matched, in its order, that did not fit: the model asks for one by its id. */
  notShown?: NotShownEntry[];
}

/** A match left out of a search's answer, as the answer names it. */
export type NotShownEntry = Pick<ContentEntry, "id" | "turnNumber" | "contentType" | "tokenCount">;

/** At most 50 entries per retrieval, whatever the budget. */
const MAX_RETRIEVE = 50;
/** Below this many tokens left, a search result too large to fit is left out rather than cut to a few lines. */
const MIN_PASSAGE_TOKENS = 50;

/**
 * Brings evicted content back, by reference, by
 * id or by search, within a token budget. Entries come back byte for byte;
 * when even the first one does not fit, its beginning is returned and the
 * result says so, rather than nothing. A search answers with what the
 * asking agent no longer sees before what its window still holds, and a
 * found entry too large to fit comes as the lines around its match.
 */
export class ContextRetriever {
  constructor(private readonly store: UniversalContentStore) {}

  async retrieve(request: RetrievalRequest): Promise<RetrievalResult> {
    let entries: ContentEntry[];
    let source: RetrievalSource;
    let search: SearchFit | undefined;
    if (request.refId) {
      const reference = this.store.getReference(request.refId);
      if (!reference)
        throw new Error(`No context reference "${request.refId}". Markers look like [CTX-REF:… | retrieve_context(ref_id="…")].`);
      entries = this.store.getByIds(reference.contentIds);
      source = "reference";
    } else if (request.contentIds?.length) {
      entries = this.store.getByIds(request.contentIds);
      source = "direct";
    } else if (request.query) {
      const window = request.window ?? NO_WINDOW;
      const outcome = await this.store.search(request.query, request.filters ?? {}, candidateCount(MAX_RETRIEVE, window));
      const ordered = recallOrder(outcome.hits, window);
      entries = ordered.map((hit) => hit.entry);
      source = "search";
      search = { query: request.query, matched: new Set(ordered.flatMap((hit) => (hit.signals.fulltext ? [hit.entry.id] : []))) };
    } else {
      throw new Error("Give a ref_id, entry ids or a query.");
    }
    // The calling message is no answer, neither found nor brought along as a found entry's call.
    if (request.includeRelated) entries = this.withRelated(entries, request.window?.calling ?? new Set());
    return {
      ...fitToBudget(entries, request.maxTokens, search),
      query: request.query ?? "",
      source,
      ...(request.refId ? { refId: request.refId } : {}),
    };
  }

  /** Entries of a session by turn range (`get_turn_range`). */
  turnRange(sessionId: string, fromTurn: number, toTurn: number, maxTokens: number): RetrievalResult {
    const entries = this.store.getByTurnRange(sessionId, fromTurn, toTurn);
    return { ...fitToBudget(entries, maxTokens), query: `turns ${fromTurn}-${toTurn}`, source: "direct" };
  }

  /**
   * Each entry with its parent and children beside it, in the entry's place,
   * so a search's order (what left the window first) holds; a reference's
   * entries, chronological already, stay so.
   */
  private withRelated(entries: readonly ContentEntry[], calling: ReadonlySet<string>): ContentEntry[] {
    const placed = new Set([...entries.map((entry) => entry.id), ...calling]);
    const relatedIds = entries.flatMap((entry) => [...(entry.parentId ? [entry.parentId] : []), ...entry.childIds]);
    const related = new Map(
      this.store.getByIds([...new Set(relatedIds)].filter((id) => !placed.has(id))).map((entry) => [entry.id, entry]),
    );
    const take = (id: string): ContentEntry[] => {
      const entry = related.get(id);
      if (!entry || placed.has(id)) return [];
      placed.add(id);
      return [entry];
    };
    return entries.flatMap((entry) => [...(entry.parentId ? take(entry.parentId) : []), entry, ...entry.childIds.flatMap(take)]);
  }
}

/** What fitting a search's entries needs: its query, and the entries its words matched (not only the vector signal's neighbours). */
interface SearchFit {
  query: string;
  matched: ReadonlySet<string>;
}

/**
 * The entries, in order, that fit in `maxTokens`, each whole. The first that
 * does not fit is cut: for a search, to the lines around its match, which
 * the search found it by, and the word matches after it are named in
 * `notShown`; otherwise, when it is the first entry, to its beginning.
 */
function fitToBudget(entries: readonly ContentEntry[], maxTokens: number, search?: SearchFit): Omit<RetrievalResult, "query" | "source"> {
  const fitted: ContentEntry[] = [];
  let totalTokens = 0;
  const considered = entries.slice(0, MAX_RETRIEVE);
  for (const [index, entry] of considered.entries()) {
    const tokens = entry.tokenCount || estimateTokens(entry.content);
    if (totalTokens + tokens <= maxTokens) {
      fitted.push(entry);
      totalTokens += tokens;
      continue;
    }
    const room = maxTokens - totalTokens;
    const notShown = (from: number) => considered.slice(from).flatMap((left) => (search?.matched.has(left.id) ? [summaryOf(left)] : []));
    if (search && room >= MIN_PASSAGE_TOKENS) {
      const { text, ...partialLines } = passageAround(entry.content, search.query, room * 4);
      const passageTokens = estimateTokens(text);
      return {
        entries: [...fitted, { ...entry, content: text, tokenCount: passageTokens }],
        totalTokens: totalTokens + passageTokens,
        truncated: true,
        partialEntryId: entry.id,
        partialLines,
        notShown: notShown(index + 1),
      };
    }
    if (search) return { entries: fitted, totalTokens, truncated: true, notShown: notShown(index) };
    if (fitted.length === 0) {
      const characters = Math.max(0, maxTokens * 4);
      return {
        entries: [{ ...entry, content: entry.content.slice(0, characters), tokenCount: maxTokens }],
        totalTokens: maxTokens,
        truncated: true,
        partialEntryId: entry.id,
      };
    }
    return { entries: fitted, totalTokens, truncated: true };
  }
  return { entries: fitted, totalTokens, truncated: entries.length > MAX_RETRIEVE };
}

function summaryOf(entry: ContentEntry): NotShownEntry {
  return {
    id: entry.id,
    turnNumber: entry.turnNumber,
    contentType: entry.contentType,
    tokenCount: entry.tokenCount || estimateTokens(entry.content),
  };
}
