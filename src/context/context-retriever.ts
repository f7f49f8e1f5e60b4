import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { ContentEntry, ContentFilters } from "../store/content-types.js";
import { estimateTokens } from "../tokens/estimate-tokens.js";

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
  /** Set when the first entry alone was larger than the budget and only its start is returned. */
  partialEntryId?: string;
}

/** At most 50 entries per retrieval, whatever the budget. */
const MAX_RETRIEVE = 50;

/**
 * Brings evicted content back, by reference, by
 * id or by search, within a token budget. Entries come back byte for byte;
 * when even the first one does not fit, its beginning is returned and the
 * result says so, rather than nothing.
 */
export class ContextRetriever {
  constructor(private readonly store: UniversalContentStore) {}

  async retrieve(request: RetrievalRequest): Promise<RetrievalResult> {
    let entries: ContentEntry[];
    let source: RetrievalSource;
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
      const outcome = await this.store.search(request.query, request.filters ?? {}, MAX_RETRIEVE);
      entries = outcome.hits.map((hit) => hit.entry);
      source = "search";
    } else {
      throw new Error("Give either a query or a ref_id.");
    }
    if (request.includeRelated) entries = this.withRelated(entries);
    return {
      ...fitToBudget(entries, request.maxTokens),
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

  private withRelated(entries: readonly ContentEntry[]): ContentEntry[] {
    const known = new Set(entries.map((entry) => entry.id));
    const relatedIds = entries
      .flatMap((entry) => [...(entry.parentId ? [entry.parentId] : []), ...entry.childIds])
      .filter((id) => !known.has(id));
    const related = this.store.getByIds([...new Set(relatedIds)]);
    return [...entries, ...related].sort((a, b) => a.turnNumber - b.turnNumber || a.timestamp - b.timestamp);
  }
}

function fitToBudget(entries: readonly ContentEntry[], maxTokens: number): Omit<RetrievalResult, "query" | "source"> {
  const fitted: ContentEntry[] = [];
  let totalTokens = 0;
  for (const entry of entries.slice(0, MAX_RETRIEVE)) {
    const tokens = entry.tokenCount || estimateTokens(entry.content);
    if (totalTokens + tokens > maxTokens) {
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
    fitted.push(entry);
    totalTokens += tokens;
  }
  return { entries: fitted, totalTokens, truncated: entries.length > MAX_RETRIEVE };
}
