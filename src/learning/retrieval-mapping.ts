import { INITIAL_PRIORS, type PrefetchThresholds } from "../context/prefetch/prefetch-config.js";
import type { AdaptiveSample } from "./adaptive-state.js";

/**
 * What one prompt's Thompson sample drives in retrieval (docs/DESIGN-NOTES.md,
 * "What learns, and what each sample drives"). At the priors' means every
 * mapping gives back the fixed `INITIAL_PRIORS` exactly, so a project
 * that has learned nothing retrieves as it always did.
 *
 * `budgetRatio` is the user's `context.prefetchBudgetRatio`: the learned
 * budget scales it (the prior's mean, 0.1, leaves it as set).
 */
export function retrievalSettingsOf(
  sample: Pick<AdaptiveSample, "appliedWeights" | "sampledThresholds"> & Partial<Pick<AdaptiveSample, "injectionArm">>,
  budgetRatio: number,
): PrefetchThresholds {
  const { relevanceBonus: r, strugglePenalty: s, wastePenalty: w } = sample.appliedWeights;
  const { confidence, excerpt, budget } = sample.sampledThresholds;
  const excerptBudgetShare = INITIAL_PRIORS.excerptBudgetShare;
  return {
    ...INITIAL_PRIORS,
    confidenceThreshold: confidence,
    excerptThreshold: excerpt,
    maxBudgetPercent: (budget * budgetRatio) / 0.1,
    // Relevance: how much recent and same-session content is preferred, and how much the vector signal counts.
    sessionPreference: r / 2,
    recencyBoost: r / 3,
    vectorWeight: (2 * r) / (r + 0.3),
    // Struggle (searches after prefetch): offer more hints, with more of the budget.
    maxSummaries: clamp(Math.round((3 * s) / 0.4), 1, 6),
    summaryBudgetShare: Math.min((0.3 * s) / 0.4, 1 - excerptBudgetShare),
    // Waste (injected, never used): fewer whole excerpts, and unused ones stay out of the hot cache.
    maxExcerpts: clamp(Math.round((2 * 0.1) / Math.max(w, 1e-6)), 1, 4),
    promoteUnused: r > 3 * w,
    // Injecting nothing still searches (the budget stays): the episode records what would have gone in.
    ...(sample.injectionArm === "nothing" ? { maxExcerpts: 0, maxSummaries: 0 } : {}),
  };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
