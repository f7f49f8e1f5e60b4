import { type ContentFilters, type ContentType, DERIVED_CONTENT_TYPES } from "../../store/content-types.js";
import type { ContentSearchHit, UniversalContentStore } from "../../content-store/universal-content-store.js";
import type { CodeSearchHit, CodeSignal, HybridCodeSearcher } from "../../search/hybrid-code-searcher.js";
import { queryTerms } from "../../parsing/code-tokenizer.js";
import type { CircuitBreaker } from "./circuit-breaker.js";
import type { HotCache } from "./hot-cache.js";
import { errorMessage } from "../../errors.js";

export type SearchTier = "hot" | "warm" | "full";
const TIER_ORDER: readonly SearchTier[] = ["hot", "warm", "full"];

/** Something prefetch might inject, with each signal's evidence for it. */
export interface PrefetchCandidate {
  /** Stable identity: `chunk:<id>`, `entry:<id>` or the hot cache's id. */
  key: string;
  kind: "code" | "history";
  /** How it is cited: `path:a-b`, or `turn N · type`. */
  source: string;
  content: string;
  description: string;
  lineCount: number;
  path?: string;
  startLine?: number;
  endLine?: number;
  language?: string | null;
  /** Symbols the chunk defines (code). */
  symbols?: string[];
  entryId?: string;
  sessionId?: string;
  turn?: number;
  /** Full-text score as a share of what covering the whole query scores (0–1). */
  coverage?: number;
  /** 1-based rank in the vector signal. */
  vectorRank?: number;
  tier: SearchTier;
}

export interface TieredSearchResult {
  candidates: PrefetchCandidate[];
  tierReached: SearchTier;
  /** Only one signal answered (a backend failed or its circuit is open). */
  singleSignal: boolean;
  degraded: string[];
  elapsedMs: number;
}

export interface TieredSearcherDeps {
  hotCache: HotCache;
  codeSearcher: Pick<HybridCodeSearcher, "search">;
  contentStore: Pick<UniversalContentStore, "search">;
  breakers: Record<CodeSignal, CircuitBreaker>;
  now?: () => number;
}

export interface TieredSearchOptions {
  budgetMs: number;
  /** The current session: its history is searched (and preferred). */
  sessionId?: string;
  /** History of the current session only (the default once there is one), or of every session of the project. */
  historyScope?: "session" | "project";
  limit?: number;
  /** The vector signal's weight in the full tier's fusion (1 by default). */
  vectorWeight?: number;
}

/**
 * Tiered search with latency budgets: the hot cache (< 1 ms), then
 * full text alone (< 10 ms), then both signals over code and history (< 200
 * ms), each tier only while the budget lasts. A circuit breaker per backend
 * skips one that keeps failing, and a search left with one signal says so,
 * so the caller can raise its threshold.
 */
export class TieredSearcher {
  private maxTier: SearchTier = "full";
  private readonly now: () => number;

  constructor(private readonly deps: TieredSearcherDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  /** Lowered under memory pressure (elevated → warm, high and critical → hot). */
  setMaxTier(tier: SearchTier): void {
    this.maxTier = tier;
  }

  get highestTier(): SearchTier {
    return this.maxTier;
  }

  async search(query: string, options: TieredSearchOptions): Promise<TieredSearchResult> {
    const started = this.now();
    const deadline = started + options.budgetMs;
    const limit = options.limit ?? 10;
    const candidates = new Map<string, PrefetchCandidate>();
    const degraded: string[] = [];
    let tierReached: SearchTier = "hot";
    const allowed = (tier: SearchTier) => TIER_ORDER.indexOf(tier) <= TIER_ORDER.indexOf(this.maxTier);

    const terms = queryTerms(query);
    for (const { entry, coverage } of this.deps.hotCache.search(terms, limit)) {
      candidates.set(entry.id, {
        key: entry.id,
        kind: entry.id.startsWith("chunk:") ? "code" : "history",
        source: entry.source,
        content: entry.content,
        description: firstLine(entry.content),
        lineCount: entry.content.split("\n").length,
        ...hotOrigin(entry.id, entry.source),
        coverage,
        tier: "hot",
      });
    }

    let signalsUsed = new Set<CodeSignal>();
    if (allowed("warm") && this.now() < deadline && this.deps.breakers.fulltext.allow()) {
      tierReached = "warm";
      const warm = await this.guarded("fulltext", () => this.deps.codeSearcher.search(query, { limit, signals: ["fulltext"] }), degraded);
      if (warm) {
        signalsUsed.add("fulltext");
        for (const hit of warm.hits) mergeCode(candidates, hit, warm.fulltextIdealScore, "warm");
      }
    }

    if (allowed("full") && this.now() < deadline) {
      tierReached = "full";
      const signals = (["fulltext", "vector"] as const).filter((signal) => this.deps.breakers[signal].allow());
      signalsUsed = new Set();
      if (signals.length > 0) {
        const code = await this.guarded(
          signals.join("+"),
          () =>
            this.deps.codeSearcher.search(query, {
              limit,
              signals,
              ...(options.vectorWeight !== undefined ? { signalWeights: { vector: options.vectorWeight } } : {}),
            }),
          degraded,
        );
        if (code) {
          this.recordSignals(signals, code.degraded);
          for (const signal of signals) if (!code.degraded.some((message) => message.startsWith(signal))) signalsUsed.add(signal);
          for (const hit of code.hits) mergeCode(candidates, hit, code.fulltextIdealScore, "full");
        }
      }
      // After /clear a new session starts afresh: earlier sessions are searched only when asked for.
      const filters: ContentFilters = options.sessionId && options.historyScope !== "project" ? { sessionId: options.sessionId } : {};
      const history = await this.guarded("history", () => this.deps.contentStore.search(query, filters, limit), degraded);
      // Observations and reflections are already in the request's Conversation Memory: put in front again, they would be there twice.
      if (history)
        for (const hit of history.hits)
          if (!isDerived(hit.entry.contentType)) mergeHistory(candidates, hit, history.fulltextIdealScore, options.sessionId);
    }
    const singleSignal = tierReached !== "full" || signalsUsed.size < 2;
    return { candidates: [...candidates.values()], tierReached, singleSignal, degraded, elapsedMs: this.now() - started };
  }

  private async guarded<T extends { degraded: string[] }>(name: string, run: () => Promise<T>, degraded: string[]): Promise<T | undefined> {
    try {
      const result = await run();
      degraded.push(...result.degraded);
      return result;
    } catch (error) {
      degraded.push(`${name} search failed: ${errorMessage(error)}`);
      for (const signal of ["fulltext", "vector"] as const) if (name.includes(signal)) this.deps.breakers[signal].recordFailure();
      return undefined;
    }
  }

  private recordSignals(signals: readonly CodeSignal[], degraded: readonly string[]): void {
    for (const signal of signals) {
      if (degraded.some((message) => message.startsWith(signal))) this.deps.breakers[signal].recordFailure();
      else this.deps.breakers[signal].recordSuccess();
    }
  }
}

function mergeCode(candidates: Map<string, PrefetchCandidate>, hit: CodeSearchHit, ideal: number | undefined, tier: SearchTier): void {
  const key = `chunk:${hit.chunkId}`;
  const previous = candidates.get(key);
  const coverage = hit.signals.fulltext && ideal ? Math.min(1, hit.signals.fulltext.score / ideal) : previous?.coverage;
  candidates.set(key, {
    key,
    kind: "code",
    source: `${hit.path}:${hit.startLine}-${hit.endLine}`,
    content: hit.content,
    description: hit.fileDescription ?? (hit.symbols.length ? `defines ${hit.symbols.slice(0, 3).join(", ")}` : firstLine(hit.content)),
    lineCount: hit.fileLineCount,
    path: hit.path,
    startLine: hit.startLine,
    endLine: hit.endLine,
    language: hit.language,
    symbols: hit.symbols,
    ...(coverage !== undefined ? { coverage } : {}),
    ...(hit.signals.vector
      ? { vectorRank: hit.signals.vector.rank }
      : previous?.vectorRank !== undefined
        ? { vectorRank: previous.vectorRank }
        : {}),
    tier,
  });
}

function mergeHistory(
  candidates: Map<string, PrefetchCandidate>,
  hit: ContentSearchHit,
  ideal: number | undefined,
  sessionId?: string,
): void {
  const { entry } = hit;
  const key = `entry:${entry.id}`;
  candidates.set(key, {
    key,
    kind: "history",
    source: `turn ${entry.turnNumber} · ${entry.contentType}${sessionId && entry.sessionId !== sessionId ? ` · session ${entry.sessionId.slice(0, 8)}` : ""}`,
    content: entry.content,
    description: firstLine(entry.content),
    lineCount: entry.content.split("\n").length,
    entryId: entry.id,
    sessionId: entry.sessionId,
    turn: entry.turnNumber,
    ...(hit.signals.fulltext && ideal ? { coverage: Math.min(1, hit.signals.fulltext.score / ideal) } : {}),
    ...(hit.signals.vector ? { vectorRank: hit.signals.vector.rank } : {}),
    tier: "full",
  });
}

/**
 * Where a hot entry came from, from its key and source: a conversation
 * entry's id, or a code chunk's path. A hint of it can then say how to open
 * it, and the run's use of it can be seen (a read of the path, a call naming
 * the entry), as for the same item found by the full tier.
 */
function hotOrigin(key: string, source: string): { entryId?: string; path?: string } {
  if (key.startsWith("entry:")) return { entryId: key.slice("entry:".length) };
  const path = /^(.+):\d+-\d+$/.exec(source)?.[1];
  return key.startsWith("chunk:") && path ? { path } : {};
}

function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line.trim();
}

function isDerived(type: ContentType): boolean {
  return (DERIVED_CONTENT_TYPES as readonly string[]).includes(type);
}
