import { describe, expect, it } from "vitest";
import type { ScoredCandidate } from "../../src/context/prefetch/injection-selection.js";
import { pairedAdvantage } from "../../src/learning/paired-advantage.js";
import { type EpisodeObservation, inferSatisfaction, isEpisodeObservation, PRIOR_MEAN_WEIGHTS } from "../../src/learning/satisfaction.js";

/** Three candidates a hint each could carry: confidences 0.95, 0.8 and 0.65 (hints cost 10 tokens, excerpts far more than the budget). */
const candidates: ScoredCandidate[] = [
  { key: "a", path: "a.ts", confidence: 0.95, excerptTokens: 10_000, summaryTokens: 10 },
  { key: "b", path: "b.ts", confidence: 0.8, excerptTokens: 10_000, summaryTokens: 10 },
  { key: "c", path: "c.ts", confidence: 0.65, excerptTokens: 10_000, summaryTokens: 10 },
];

function episode(confidence: number, neededKeys: string[], searches: number): EpisodeObservation {
  return {
    sequence: 1,
    timestamp: 1,
    contextId: "ctx_0",
    query: "q",
    queryEmbedding: [1],
    sampledWeights: PRIOR_MEAN_WEIGHTS,
    appliedWeights: PRIOR_MEAN_WEIGHTS,
    sampledThresholds: { confidence, excerpt: 0.99, budget: 0.1 },
    taskCompleted: true,
    followUps: 0,
    corrections: 0,
    toolCalls: 2,
    userEdits: 0,
    hedging: false,
    prefetchedKeys: [],
    usedKeys: [],
    searchedAfter: Array.from({ length: searches }, (_, i) => `s${i}`),
    prefetchRounds: [{ candidates, remainingTokens: 100_000, penalty: 1, neededKeys }],
    budgetRatio: 0.1,
  };
}

describe("pairedAdvantage", () => {
  it("scores the sampled threshold against others on the same episode: waste and the searches a missed item costs", () => {
    // Sampled 0.9: only a is injected; the run needed a and b, so it searched once (for b).
    const sampled = episode(0.9, ["a", "b"], 1);
    const atSample = inferSatisfaction({ ...sampled, prefetchedKeys: ["a"], usedKeys: ["a"] }, PRIOR_MEAN_WEIGHTS);
    // At 0.7 a and b go in, and the search is spared; at 0.6 c goes in too, unused.
    const at07 = inferSatisfaction({ ...sampled, prefetchedKeys: ["a", "b"], usedKeys: ["a", "b"], searchedAfter: [] }, PRIOR_MEAN_WEIGHTS);
    const at06 = inferSatisfaction(
      { ...sampled, prefetchedKeys: ["a", "b", "c"], usedKeys: ["a", "b"], searchedAfter: [] },
      PRIOR_MEAN_WEIGHTS,
    );
    expect(pairedAdvantage(sampled, "confidence", [0.7, 0.6], PRIOR_MEAN_WEIGHTS)).toBeCloseTo(atSample - (at07 + at06) / 2, 12);
    expect(pairedAdvantage(sampled, "confidence", [0.7, 0.6], PRIOR_MEAN_WEIGHTS)).toBeLessThan(0);
    // Where nothing past a was needed, the lower thresholds only waste: the sample is ahead.
    expect(pairedAdvantage(episode(0.9, ["a"], 0), "confidence", [0.7, 0.6], PRIOR_MEAN_WEIGHTS)).toBeGreaterThan(0);
    // Compared with itself, a sample has no advantage.
    expect(pairedAdvantage(sampled, "confidence", [0.9], PRIOR_MEAN_WEIGHTS)).toBe(0);
  });

  it("is undefined for an episode without prefetch records, and such records are validated when read back", () => {
    const { prefetchRounds: _, ...bare } = episode(0.9, ["a"], 0);
    expect(pairedAdvantage(bare as EpisodeObservation, "confidence", [0.5], PRIOR_MEAN_WEIGHTS)).toBeUndefined();
    expect(isEpisodeObservation(episode(0.9, ["a"], 0))).toBe(true);
    expect(
      isEpisodeObservation({
        ...episode(0.9, ["a"], 0),
        prefetchRounds: [{ candidates: [{ key: 1 }], remainingTokens: 1, penalty: 1, neededKeys: [] }],
      }),
    ).toBe(false);
  });

  it("replays a focused prefetch's budget ceiling for every draw, as the run had it", () => {
    // Hints cost 10 tokens; a 20-token ceiling leaves room for a summary share (30 %) of 6: no hint fits at any threshold.
    const capped = episode(0.9, ["a", "b"], 1);
    capped.prefetchRounds = capped.prefetchRounds!.map((round) => ({ ...round, maxBudgetTokens: 20 }));
    expect(pairedAdvantage(capped, "confidence", [0.7, 0.6], PRIOR_MEAN_WEIGHTS)).toBe(0);
    expect(pairedAdvantage(episode(0.9, ["a", "b"], 1), "confidence", [0.7, 0.6], PRIOR_MEAN_WEIGHTS)).not.toBe(0);
    expect(isEpisodeObservation(capped)).toBe(true);
  });
});
