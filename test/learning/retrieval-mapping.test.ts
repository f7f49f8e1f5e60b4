import { describe, expect, it } from "vitest";
import { INITIAL_PRIORS } from "../../src/context/prefetch/prefetch-config.js";
import { retrievalSettingsOf } from "../../src/learning/retrieval-mapping.js";
import { PRIOR_MEAN_WEIGHTS } from "../../src/learning/satisfaction.js";

const PRIOR_THRESHOLDS = { confidence: 0.85, excerpt: 0.9, budget: 0.1 };

describe("retrievalSettingsOf", () => {
  it("gives back the fixed initial priors exactly at the priors' means", () => {
    const settings = retrievalSettingsOf({ appliedWeights: PRIOR_MEAN_WEIGHTS, sampledThresholds: PRIOR_THRESHOLDS }, 0.1);
    expect(settings.confidenceThreshold).toBe(INITIAL_PRIORS.confidenceThreshold);
    expect(settings.excerptThreshold).toBe(INITIAL_PRIORS.excerptThreshold);
    expect(settings.maxExcerpts).toBe(INITIAL_PRIORS.maxExcerpts);
    expect(settings.maxSummaries).toBe(INITIAL_PRIORS.maxSummaries);
    expect(settings.maxBudgetPercent).toBeCloseTo(INITIAL_PRIORS.maxBudgetPercent, 12);
    expect(settings.sessionPreference).toBeCloseTo(INITIAL_PRIORS.sessionPreference, 12);
    expect(settings.recencyBoost).toBeCloseTo(INITIAL_PRIORS.recencyBoost, 12);
    expect(settings.summaryBudgetShare).toBeCloseTo(INITIAL_PRIORS.summaryBudgetShare, 12);
    expect(settings.vectorWeight).toBeCloseTo(1, 12);
    expect(settings.promoteUnused).toBe(false);
  });

  it("scales the user's budget setting by the learned budget", () => {
    expect(
      retrievalSettingsOf({ appliedWeights: PRIOR_MEAN_WEIGHTS, sampledThresholds: PRIOR_THRESHOLDS }, 0.2).maxBudgetPercent,
    ).toBeCloseTo(0.2, 12);
    expect(
      retrievalSettingsOf({ appliedWeights: PRIOR_MEAN_WEIGHTS, sampledThresholds: { ...PRIOR_THRESHOLDS, budget: 0.05 } }, 0.2)
        .maxBudgetPercent,
    ).toBeCloseTo(0.1, 12);
  });

  it("a heavier waste penalty injects fewer excerpts; a heavier struggle penalty offers more hints", () => {
    const wasteful = retrievalSettingsOf(
      { appliedWeights: { ...PRIOR_MEAN_WEIGHTS, wastePenalty: 0.3 }, sampledThresholds: PRIOR_THRESHOLDS },
      0.1,
    );
    expect(wasteful.maxExcerpts).toBe(1);
    const starved = retrievalSettingsOf(
      { appliedWeights: { ...PRIOR_MEAN_WEIGHTS, strugglePenalty: 0.8 }, sampledThresholds: PRIOR_THRESHOLDS },
      0.1,
    );
    expect(starved.maxSummaries).toBe(6);
    // Hints never take budget the excerpts keep.
    expect(starved.summaryBudgetShare + starved.excerptBudgetShare).toBeLessThanOrEqual(1);
  });

  it("relevance over waste promotes unused items to the hot cache and weighs the vector signal more", () => {
    const relevant = retrievalSettingsOf(
      { appliedWeights: { ...PRIOR_MEAN_WEIGHTS, relevanceBonus: 0.6, wastePenalty: 0.05 }, sampledThresholds: PRIOR_THRESHOLDS },
      0.1,
    );
    expect(relevant.promoteUnused).toBe(true);
    expect(relevant.vectorWeight).toBeGreaterThan(1);
    expect(relevant.vectorWeight).toBeLessThan(2);
  });

  it("hints only offer what injecting would, each as a hint, within both shares of the budget; nothing offers none", () => {
    const sample = { appliedWeights: PRIOR_MEAN_WEIGHTS, sampledThresholds: PRIOR_THRESHOLDS };
    const injecting = retrievalSettingsOf(sample, 0.1);
    const hints = retrievalSettingsOf({ ...sample, injectionArm: "hints" }, 0.1);
    expect(hints.maxExcerpts).toBe(0);
    expect(hints.maxSummaries).toBe(injecting.maxExcerpts + injecting.maxSummaries);
    expect(hints.summaryBudgetShare).toBeCloseTo(injecting.excerptBudgetShare + injecting.summaryBudgetShare, 12);
    expect(hints.maxBudgetPercent).toBe(injecting.maxBudgetPercent);
    const nothing = retrievalSettingsOf({ ...sample, injectionArm: "nothing" }, 0.1);
    expect(nothing.maxExcerpts + nothing.maxSummaries).toBe(0);
    // The search still runs with its budget: the episode records what would have gone in.
    expect(nothing.maxBudgetPercent).toBe(injecting.maxBudgetPercent);
  });
});
