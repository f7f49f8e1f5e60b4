import type { ContentSearchHit, UniversalContentStore } from "../content-store/universal-content-store.js";
import type { CodeSearchHit, CodeSignal, HybridCodeSearcher } from "../search/hybrid-code-searcher.js";
import { reciprocalRankFusion } from "../search/rrf.js";

export type SearchScope = "code" | "history" | "all";

export interface ProjectSearchOptions {
  k: number;
  scope: SearchScope;
  /** The code signals to fuse; both by default. */
  signals?: CodeSignal[];
  /** Reciprocal Rank Fusion's constant where code and history meet (`search.rrfK`; 60 when not given). */
  rrfK?: number;
}

/** One result as `sylk search --json` prints it and `/search` shows it; scripts and benchmarks rely on this shape. */
export interface SearchResultJson {
  path: string | null;
  startLine: number | null;
  endLine: number | null;
  /** Fused score (relative scores within a store, RRF for code and history together): comparable only within one response. */
  score: number;
  /** Each signal's own rank and score, within the hit's own store. */
  signals: Record<string, { rank: number; score: number }>;
  snippet: string;
  /** History hits only. */
  entry?: { id: string; sessionId: string; turn: number; contentType: string; agentType: string; timestamp: number };
}

export interface SearchResponseJson {
  query: string;
  results: SearchResultJson[];
  /** Time spent answering, in milliseconds. */
  tookMs: number;
  /** Present when a signal failed and the results come from the others. */
  degraded?: string[];
}

/** What a project search reads: the code searcher, and the history store when history is searched. */
export interface ProjectSearchSources {
  codeSearcher: Pick<HybridCodeSearcher, "search">;
  contentStore?: Pick<UniversalContentStore, "search">;
}

/**
 * Searches the project's code, its conversation history, or both. Each
 * store ranks its own hits by fusing its own signals; the two rankings are
 * then fused by rank. Their scores cannot be compared: a code list searched
 * with one signal scores at most 1 while a history hit that both signals
 * found scores up to 2, so sorting by score put every such history hit
 * above the best code.
 */
export async function searchProject(
  sources: ProjectSearchSources,
  query: string,
  options: ProjectSearchOptions,
): Promise<SearchResponseJson> {
  const started = performance.now();
  const degraded: string[] = [];
  let code: SearchResultJson[] = [];
  let history: SearchResultJson[] = [];
  if (options.scope !== "history") {
    const outcome = await sources.codeSearcher.search(query, {
      limit: options.k,
      ...(options.signals ? { signals: options.signals } : {}),
    });
    degraded.push(...outcome.degraded);
    code = outcome.hits.map(codeResult);
  }
  if (options.scope !== "code") {
    if (!sources.contentStore) throw new Error("Searching history needs the project's content store.");
    const outcome = await sources.contentStore.search(query, {}, options.k);
    degraded.push(...outcome.degraded);
    history = outcome.hits.map(historyResult);
  }
  const results = options.scope === "all" ? fuseByRank(code, history, options.rrfK) : [...code, ...history];
  const response: SearchResponseJson = {
    query,
    results: results.slice(0, options.k),
    tookMs: Math.round((performance.now() - started) * 100) / 100,
  };
  if (degraded.length > 0) response.degraded = degraded;
  return response;
}

/** Code and history in one ranking by Reciprocal Rank Fusion; each result takes the fused score, its signals stay its store's. */
function fuseByRank(code: readonly SearchResultJson[], history: readonly SearchResultJson[], k?: number): SearchResultJson[] {
  const ranked = (results: readonly SearchResultJson[]) => results.map((result) => ({ id: result, score: result.score }));
  return reciprocalRankFusion(
    [
      { signal: "code", hits: ranked(code) },
      { signal: "history", hits: ranked(history) },
    ],
    k,
  ).map((fused) => ({ ...fused.id, score: fused.score }));
}

function codeResult(hit: CodeSearchHit): SearchResultJson {
  return { path: hit.path, startLine: hit.startLine, endLine: hit.endLine, score: hit.score, signals: hit.signals, snippet: hit.snippet };
}

function historyResult({ entry, score, signals, snippet }: ContentSearchHit): SearchResultJson {
  return {
    path: entry.relatedFiles[0] ?? null,
    startLine: null,
    endLine: null,
    score,
    signals,
    snippet,
    entry: {
      id: entry.id,
      sessionId: entry.sessionId,
      turn: entry.turnNumber,
      contentType: entry.contentType,
      agentType: entry.agentType,
      timestamp: entry.timestamp,
    },
  };
}
