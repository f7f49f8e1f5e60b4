import { AccessTracker } from "./access-tracker.js";
import { CircuitBreaker } from "./circuit-breaker.js";
import { HotCache } from "./hot-cache.js";
import { MemoryPressureMonitor, type PressureLevel } from "./memory-pressure.js";
import { INITIAL_PRIORS, type PrefetchThresholds } from "./prefetch-config.js";
import { PrefetchMetrics } from "./prefetch-metrics.js";
import { QueryAugmenter, type AugmentedQuery, type PrefetchSituation } from "./query-augmenter.js";
import { SpeculativePrefetcher } from "./speculative-prefetcher.js";
import { TieredSearcher, type TieredSearcherDeps } from "./tiered-searcher.js";

export interface Prefetcher {
  augmenter: QueryAugmenter;
  speculative: SpeculativePrefetcher;
  searcher: TieredSearcher;
  tracker: AccessTracker;
  hotCache: HotCache;
  metrics: PrefetchMetrics;
  pressure: MemoryPressureMonitor;
  /** One augmentation with nothing in the window (benchmarks, tests). */
  augment(query: string, remainingTokens: number, situation?: Partial<PrefetchSituation>): Promise<AugmentedQuery>;
}

/**
 * Wires the prefetch pipeline for one session: tiered search with a breaker
 * per backend, the bounded access tracker and hot cache, and the
 * response to memory pressure.
 */
export function createPrefetcher(deps: {
  /** What the prefetch searches: the code searcher and the history store. */
  services: Pick<TieredSearcherDeps, "codeSearcher" | "contentStore">;
  sessionId?: string;
  windowTokens: number;
  thresholds?: () => PrefetchThresholds;
  pressure?: MemoryPressureMonitor;
}): Prefetcher {
  const hotCache = new HotCache();
  const tracker = new AccessTracker();
  const searcher = new TieredSearcher({
    hotCache,
    codeSearcher: deps.services.codeSearcher,
    contentStore: deps.services.contentStore,
    breakers: { fulltext: new CircuitBreaker("fulltext"), vector: new CircuitBreaker("vector") },
  });
  const thresholds = deps.thresholds ?? (() => INITIAL_PRIORS);
  const augmenter = new QueryAugmenter(searcher, thresholds, tracker);
  const metrics = new PrefetchMetrics();
  // Hot-cache promotion: an excerpt the answer used always; one it did not, only when the learned
  // settings say unused excerpts are still worth keeping near (promoteUnused).
  metrics.onOutcome(({ prefetch, usedExcerpts }) => {
    const promoted = thresholds().promoteUnused ? prefetch.excerpts : usedExcerpts;
    for (const excerpt of promoted) hotCache.put(excerpt.key, excerpt.source, excerpt.content);
  });
  const speculative = new SpeculativePrefetcher(augmenter);
  const pressure = deps.pressure ?? new MemoryPressureMonitor();
  pressure.registerEvictableCache(hotCache);
  pressure.onChange((level: PressureLevel) => {
    speculative.setEnabled(level === "normal" || level === "elevated");
    searcher.setMaxTier(level === "normal" ? "full" : level === "elevated" ? "warm" : "hot");
    if (level === "critical") tracker.shed(0.5);
  });
  return {
    augmenter,
    speculative,
    searcher,
    tracker,
    hotCache,
    metrics,
    pressure,
    augment: (query, remainingTokens, situation = {}) =>
      augmenter.augment(query, remainingTokens, {
        turn: situation.turn ?? 0,
        inWindow: situation.inWindow ?? new Set(),
        pathsInWindow: situation.pathsInWindow ?? new Set(),
        ...(deps.sessionId ? { sessionId: deps.sessionId } : {}),
      }),
  };
}
