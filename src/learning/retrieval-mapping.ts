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
    maxSummaries: summaryCount(s),
    summaryBudgetShare: summaryShare(s),
    // Waste (injected, never used): fewer whole excerpts, and unused ones stay out of the hot cache.
    maxExcerpts: excerptCount(w),
    promoteUnused: r > 3 * w,
    ...armSettings(sample.injectionArm, s, w),
  };
}

/**
 * What the arm changes. Injecting nothing still searches (the budget
 * stays): the episode records what would have gone in. Hints only offer the
 * items injecting would put in, each as a hint, within the budget both
 * shares had.
 */
function armSettings(arm: AdaptiveSample["injectionArm"] | undefined, s: number, w: number): Partial<PrefetchThresholds> {
  if (arm === "nothing") return { maxExcerpts: 0, maxSummaries: 0 };
  if (arm !== "hints") return {};
  return {
    maxExcerpts: 0,
    maxSummaries: excerptCount(w) + summaryCount(s),
    summaryBudgetShare: Math.min(1, INITIAL_PRIORS.excerptBudgetShare + summaryShare(s)),
  };
}

const summaryShare = (s: number) => Math.min((0.3 * s) / 0.4, 1 - INITIAL_PRIORS.excerptBudgetShare);
const summaryCount = (s: number) => clamp(Math.round((3 * s) / 0.4), 1, 6);
const excerptCount = (w: number) => clamp(Math.round((2 * 0.1) / Math.max(w, 1e-6)), 1, 4);

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
