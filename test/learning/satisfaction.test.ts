import { describe, expect, it } from "vitest";
import { detectHedging, type EpisodeObservation, inferSatisfaction, PRIOR_MEAN_WEIGHTS } from "../../src/learning/satisfaction.js";
import { mulberry32 } from "../helpers/random-vectors.js";

/** The unweighted satisfaction function, written out term by term as a reference. */
function seedInferSatisfaction(e: {
  TaskCompleted: boolean;
  FollowUpCount: number;
  SearchedAfter: string[];
  HedgingDetected: boolean;
  PrefetchedIDs: string[];
  UsedIDs: string[];
}): number {
  let score = 0;
  if (e.TaskCompleted && e.FollowUpCount === 0) score += 0.5;
  if (e.TaskCompleted && e.FollowUpCount > 0) score += 0.2;
  score -= e.FollowUpCount * 0.1;
  score -= e.SearchedAfter.length * 0.15;
  if (e.HedgingDetected) score -= 0.2;
  if (!e.TaskCompleted) score -= 0.4;
  const unusedPrefetch = e.PrefetchedIDs.length - e.UsedIDs.length;
  score -= unusedPrefetch * 0.02;
  return score;
}

const weights = { taskSuccess: 0.8, relevanceBonus: 0.3, strugglePenalty: 0.4, wastePenalty: 0.1 };
const thresholds = { confidence: 0.85, excerpt: 0.9, budget: 0.1 };

function episode(overrides: Partial<EpisodeObservation> = {}): EpisodeObservation {
  return {
    sequence: 0,
    timestamp: 0,
    contextId: "ctx_0",
    query: "fix the parser",
    queryEmbedding: [1, 0],
    sampledWeights: weights,
    sampledThresholds: thresholds,
    appliedWeights: weights,
    taskCompleted: true,
    followUps: 0,
    corrections: 0,
    toolCalls: 0,
    userEdits: 0,
    hedging: false,
    prefetchedKeys: [],
    usedKeys: [],
    searchedAfter: [],
    ...overrides,
  };
}

function randomEpisode(random: () => number): EpisodeObservation {
  const int = (n: number) => Math.floor(random() * n);
  const prefetchedKeys = Array.from({ length: int(12) }, (_, i) => `src/file${i}.ts`);
  return episode({
    taskCompleted: random() < 0.6,
    followUps: int(3),
    corrections: int(2),
    toolCalls: int(20),
    userEdits: int(3),
    hedging: random() < 0.3,
    prefetchedKeys,
    usedKeys: prefetchedKeys.filter(() => random() < 0.4),
    searchedAfter: Array.from({ length: int(5) }, (_, i) => `query ${i}`),
  });
}

describe("inferSatisfaction", () => {
  it("is exactly the unweighted function at the prior means, on 2,000 seeded random episodes", () => {
    expect(PRIOR_MEAN_WEIGHTS).toEqual(weights);
    const random = mulberry32(13);
    for (let i = 0; i < 2000; i++) {
      const e = randomEpisode(random);
      const seed = seedInferSatisfaction({
        TaskCompleted: e.taskCompleted,
        FollowUpCount: e.followUps + 2 * e.corrections,
        SearchedAfter: e.searchedAfter,
        HedgingDetected: e.hedging,
        PrefetchedIDs: e.prefetchedKeys,
        UsedIDs: e.usedKeys,
      });
      expect(inferSatisfaction(e, PRIOR_MEAN_WEIGHTS)).toBe(seed);
    }
  });

  it("scores the reference cases: a clean completion, a completion with help, a failure", () => {
    expect(inferSatisfaction(episode(), weights)).toBe(0.5);
    expect(inferSatisfaction(episode({ followUps: 1 }), weights)).toBeCloseTo(0.2 - 0.1, 12);
    expect(inferSatisfaction(episode({ corrections: 1 }), weights)).toBeCloseTo(0.2 - 0.2, 12);
    expect(inferSatisfaction(episode({ taskCompleted: false, hedging: true, searchedAfter: ["a", "b"] }), weights)).toBeCloseTo(
      -0.4 - 0.2 - 0.3,
      12,
    );
  });

  it("scales each term by its weight relative to the prior mean", () => {
    const starved = episode({ searchedAfter: ["a", "b"] });
    expect(inferSatisfaction(starved, { ...weights, strugglePenalty: 0.8 })).toBeCloseTo(0.5 - 0.6, 12);
    const wasteful = episode({ prefetchedKeys: ["a", "b", "c"], usedKeys: ["a"] });
    expect(inferSatisfaction(wasteful, { ...weights, wastePenalty: 0.2 })).toBeCloseTo(0.5 - 2 * 0.04, 12);
    expect(inferSatisfaction(wasteful, { ...weights, relevanceBonus: 0.6 })).toBeCloseTo(0.5 - 2 * 0.02 + 0.05, 12);
    expect(inferSatisfaction(episode(), { ...weights, taskSuccess: 0.4 })).toBeCloseTo(0.25, 12);
  });

  it("counts only used keys that were prefetched", () => {
    const e = episode({ prefetchedKeys: ["a", "b"], usedKeys: ["a", "elsewhere", "other"] });
    expect(inferSatisfaction(e, weights)).toBeCloseTo(0.5 - 0.02, 12);
  });
});

describe("detectHedging", () => {
  it("finds the design notes' phrases, whatever the case or apostrophe", () => {
    for (const text of ["I'm not sure this is right", "I couldn’t find the config", "It might be in utils", "The cause is UNCLEAR."]) {
      expect(detectHedging(text)).toBe(true);
    }
  });

  it("leaves confident answers alone, also words that merely contain a phrase", () => {
    for (const text of ["The bug is in parse().", "This is clear.", "Sure, done.", "mightbe"]) expect(detectHedging(text)).toBe(false);
  });
});
