import { prefetchBudget, type PrefetchThresholds } from "./prefetch-config.js";

/**
 * One candidate as the selection sees it: its confidence before any
 * threshold, and what it would cost whole (an excerpt) or as a one-line
 * hint. Small and plain, so an episode can record the candidates of each
 * prefetch and self-tuning retrieval can ask what other thresholds would
 * have injected (`src/learning/paired-advantage.ts`).
 */
export interface ScoredCandidate {
  key: string;
  path?: string;
  confidence: number;
  excerptTokens: number;
  summaryTokens: number;
}

/** Raised thresholds when only one signal answered (× 1.1). */
export const SINGLE_SIGNAL_PENALTY = 1.1;

/**
 * Tiered injection: over the candidates in descending confidence,
 * up to `maxExcerpts` excerpts at or above the excerpt threshold within
 * their share of the budget, then hints at or above the confidence
 * threshold within theirs; one item per path. The prefetcher and the
 * counterfactual both choose with this function, so they cannot disagree.
 */
export function selectInjection(
  ranked: readonly ScoredCandidate[],
  thresholds: PrefetchThresholds,
  remainingTokens: number,
  penalty: number,
): { excerpts: ScoredCandidate[]; summaries: ScoredCandidate[]; budget: number } {
  const budget = prefetchBudget(thresholds, remainingTokens);
  const excerpts: ScoredCandidate[] = [];
  const summaries: ScoredCandidate[] = [];
  const excerptBudget = Math.floor(budget * thresholds.excerptBudgetShare);
  const summaryBudget = Math.floor(budget * thresholds.summaryBudgetShare);
  let excerptTokens = 0;
  let summaryTokens = 0;
  const usedPaths = new Set<string>();
  for (const candidate of ranked) {
    if (candidate.confidence < thresholds.confidenceThreshold * penalty) continue;
    if (candidate.path && usedPaths.has(candidate.path)) continue;
    if (
      candidate.confidence >= thresholds.excerptThreshold * penalty &&
      excerpts.length < thresholds.maxExcerpts &&
      excerptTokens + candidate.excerptTokens <= excerptBudget
    ) {
      excerpts.push(candidate);
      excerptTokens += candidate.excerptTokens;
      if (candidate.path) usedPaths.add(candidate.path);
      continue;
    }
    if (summaries.length < thresholds.maxSummaries && summaryTokens + candidate.summaryTokens <= summaryBudget) {
      summaries.push(candidate);
      summaryTokens += candidate.summaryTokens;
      if (candidate.path) usedPaths.add(candidate.path);
    }
  }
  return { excerpts, summaries, budget };
}
