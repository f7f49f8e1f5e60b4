/**
 * Prefetch constraints: the initial priors. They are one object
 * on purpose: self-tuning retrieval (`src/learning/retrieval-mapping.ts`)
 * derives each prompt's values from its Thompson sample, and gives back
 * exactly these at the priors' means.
 */
export interface PrefetchThresholds {
  /** Share of the remaining window prefetch may fill (prior 10 %). */
  maxBudgetPercent: number;
  /** A ceiling on that budget in tokens, whatever the window (focused prefetch of pipeline roles: 1,000); none when absent. */
  maxBudgetTokens?: number;
  /** Least confidence for a one-line hint (Tier B). */
  confidenceThreshold: number;
  /** Least confidence for an excerpt (Tier A). */
  excerptThreshold: number;
  maxExcerpts: number;
  maxSummaries: number;
  maxExcerptLines: number;
  /** Both signals (full text and vectors) must vouch for a candidate. */
  requireMultiSignal: boolean;
  /** Up to this much more confidence for recent content. */
  recencyBoost: number;
  /** This much more confidence for content of the current session. */
  sessionPreference: number;
  /** Shares of the budget for excerpts and hints (60 % and 30 %). */
  excerptBudgetShare: number;
  summaryBudgetShare: number;
  /** The vector signal's weight in the prefetch search's fusion (full text's is 1). */
  vectorWeight: number;
  /** Whether an injected item the answer did not use still goes to the hot cache (a used one always does). */
  promoteUnused: boolean;
}

export const INITIAL_PRIORS: Readonly<PrefetchThresholds> = {
  maxBudgetPercent: 0.1,
  confidenceThreshold: 0.85,
  excerptThreshold: 0.9,
  maxExcerpts: 2,
  maxSummaries: 3,
  maxExcerptLines: 50,
  requireMultiSignal: true,
  recencyBoost: 0.1,
  sessionPreference: 0.15,
  excerptBudgetShare: 0.6,
  summaryBudgetShare: 0.3,
  vectorWeight: 1,
  promoteUnused: false,
};

/** The tokens one prefetch may inject: its share of the remaining window, within the ceiling when there is one. */
export function prefetchBudget(
  thresholds: Pick<PrefetchThresholds, "maxBudgetPercent" | "maxBudgetTokens">,
  remainingTokens: number,
): number {
  const share = Math.floor(remainingTokens * thresholds.maxBudgetPercent);
  return thresholds.maxBudgetTokens === undefined ? share : Math.min(share, thresholds.maxBudgetTokens);
}

/** Whether prefetch runs at all: on, and with a budget to fill (`context.prefetch`, `context.prefetchBudgetRatio`). */
export function prefetchIsOn(context: { prefetch: boolean; prefetchBudgetRatio: number }): boolean {
  return context.prefetch && context.prefetchBudgetRatio > 0;
}
