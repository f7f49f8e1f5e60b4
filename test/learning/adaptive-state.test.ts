import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AdaptiveState, PARAMETER_NAMES, type UpdateRule } from "../../src/learning/adaptive-state.js";
import { DEFAULT_UPDATE_CONFIG, type UpdateConfig } from "../../src/learning/robust-weight-distribution.js";
import { type EpisodeObservation, inferSatisfaction, PRIOR_MEAN_WEIGHTS } from "../../src/learning/satisfaction.js";
import { mulberry32 } from "../helpers/random-vectors.js";

function episode(
  state: AdaptiveState,
  query: string,
  embedding: number[],
  sequence: number,
  random: () => number,
  outcome: Partial<EpisodeObservation> = {},
): EpisodeObservation {
  return {
    sequence,
    timestamp: sequence,
    query,
    queryEmbedding: embedding,
    ...state.sample(state.contexts.classify(query, embedding), random),
    taskCompleted: true,
    followUps: 0,
    corrections: 0,
    toolCalls: 2,
    userEdits: 0,
    hedging: false,
    prefetchedKeys: ["a", "b"],
    usedKeys: ["a"],
    searchedAfter: [],
    ...outcome,
  };
}

/**
 * A user whose best confidence threshold is `optimum` (0.6): the further the
 * played threshold, the likelier the model has to search. Its episodes
 * record no prefetch, so only a threshold drawn and played can learn from
 * them (the original rule, `thresholds: "draw"`).
 */
function simulate(rule: UpdateRule, seed: number, episodes: number, optimum = 0.6, config: UpdateConfig = DEFAULT_UPDATE_CONFIG): number {
  const random = mulberry32(seed);
  // Whether to inject at all draws from its own stream: this user's outcome does not depend on it.
  const armRandom = mulberry32(seed + 1_000);
  const state = new AdaptiveState({ ...config, thresholds: "draw" });
  for (let i = 1; i <= episodes; i++) {
    const sample = state.sample(state.contexts.classify("fix the parser", [1, 0, 0]), random, armRandom);
    const distance = Math.abs(sample.sampledThresholds.confidence - optimum);
    state.update(
      {
        sequence: i,
        timestamp: i,
        query: "fix the parser",
        queryEmbedding: [1, 0, 0],
        ...sample,
        taskCompleted: true,
        followUps: 0,
        corrections: 0,
        toolCalls: 3,
        userEdits: 0,
        hedging: random() < 0.2, // noise unrelated to the sample
        prefetchedKeys: ["a", "b"],
        usedKeys: ["a"],
        searchedAfter: random() < 2 * distance ? ["query"] : [],
      },
      rule,
    );
  }
  return state.distribution("thresholds.confidence").mean();
}

describe("AdaptiveState", () => {
  it("starts at the priors under the learned parameters' names", () => {
    const means = Object.fromEntries(new AdaptiveState().parameters().map((p) => [p.name, p.mean]));
    expect(means).toEqual({
      "weights.taskSuccess": 0.8,
      "weights.relevanceBonus": 0.3,
      "weights.strugglePenalty": 0.4,
      "weights.wastePenalty": 0.1,
      "thresholds.confidence": 0.85,
      "thresholds.excerpt": 0.9,
      "thresholds.budget": 0.1,
    });
    expect(new AdaptiveState().parameters()[4]).toEqual({
      name: "thresholds.confidence",
      alpha: 8.5,
      beta: 1.5,
      mean: 0.85,
      effectiveSamples: 0,
      played: 0.85,
    });
  });

  it("adjusts the sampled weights by the context's bias, and by the profile only after 5 observations", () => {
    const state = new AdaptiveState();
    const contextId = state.contexts.learn("q", [1, 0]);
    state.contexts.bias(contextId)!.wasteMult = 2;
    state.profile.strugglePenaltyMult = 1.5;
    const early = state.sample(contextId, mulberry32(1));
    expect(early.appliedWeights.wastePenalty).toBeCloseTo(early.sampledWeights.wastePenalty * 2, 12);
    expect(early.appliedWeights.strugglePenalty).toBe(early.sampledWeights.strugglePenalty);
    state.profile.observationCount = 5;
    const late = state.sample(contextId, mulberry32(1));
    expect(late.appliedWeights.strugglePenalty).toBeCloseTo(late.sampledWeights.strugglePenalty * 1.5, 12);
    expect(late.appliedWeights.taskSuccess).toBe(late.sampledWeights.taskSuccess);
  });

  it('signals the satisfaction itself under the "seed" rule and its advantage over the context\'s baseline otherwise', () => {
    const random = mulberry32(2);
    // Satisfaction at the episode's own weights, so that the arithmetic below can use them.
    const state = new AdaptiveState({ ...DEFAULT_UPDATE_CONFIG, rewardWeights: "applied" });
    const contextId = "ctx_0";
    const first = episode(state, "q", [1, 0], 1, random);
    const satisfaction = inferSatisfaction(first, first.appliedWeights);
    expect(state.update(first, "advantage")).toEqual({ applied: true, satisfaction, signal: 0 });
    expect(state.contexts.baseline(contextId)).toBe(satisfaction);
    const failed = episode(state, "q", [1, 0], 2, random, { taskCompleted: false });
    const failedSatisfaction = inferSatisfaction(failed, failed.appliedWeights);
    expect(state.update(failed, "advantage")).toEqual({
      applied: true,
      satisfaction: failedSatisfaction,
      signal: failedSatisfaction - satisfaction,
    });
    const third = episode(state, "q", [1, 0], 3, random);
    expect(state.update(third, "seed")).toEqual({
      applied: true,
      satisfaction: inferSatisfaction(third, third.appliedWeights),
      signal: inferSatisfaction(third, third.appliedWeights),
    });
    expect(state.totalObservations).toBe(3);
    expect(state.profile.observationCount).toBe(3);
    expect(state.contexts.bias(contextId)!.observationCount).toBe(3);
  });

  it("by default (rewardWeights \"mean\"), computes the satisfaction at the weights' means adjusted as the sample was, not at this episode's draws", () => {
    const outcome = { searchedAfter: ["x", "y"], prefetchedKeys: ["a", "b", "c"], usedKeys: ["a"], followUps: 1 };
    const drawn = (state: AdaptiveState, sequence: number) => {
      const e = episode(state, "q", [1, 0], sequence, mulberry32(sequence), outcome);
      // Draws that would flatter the episode: no struggle or waste penalty, full success weight.
      return { ...e, appliedWeights: { taskSuccess: 1, relevanceBonus: 0.9, strugglePenalty: 0, wastePenalty: 0 } };
    };
    const seedWay = new AdaptiveState({ ...DEFAULT_UPDATE_CONFIG, rewardWeights: "applied" });
    const first = drawn(seedWay, 1);
    expect(seedWay.update(first, "seed")).toMatchObject({ satisfaction: inferSatisfaction(first, first.appliedWeights) });

    const byMeans = new AdaptiveState();
    const same = drawn(byMeans, 1);
    expect(byMeans.update(same, "seed")).toMatchObject({ satisfaction: inferSatisfaction(same, PRIOR_MEAN_WEIGHTS) });
    // The profile (past 5 observations) and the context's bias still apply, as when sampling.
    byMeans.profile.observationCount = 5;
    byMeans.profile.strugglePenaltyMult = 2;
    byMeans.contexts.bias("ctx_0")!.wasteMult = 1.5;
    const means = Object.fromEntries(byMeans.parameters().map((p) => [p.name, p.mean]));
    const later = drawn(byMeans, 2);
    const expected = inferSatisfaction(later, {
      taskSuccess: means["weights.taskSuccess"]!,
      relevanceBonus: means["weights.relevanceBonus"]!,
      strugglePenalty: means["weights.strugglePenalty"]! * 2,
      wastePenalty: means["weights.wastePenalty"]! * 1.5,
    });
    expect(byMeans.update(later, "seed")).toMatchObject({ satisfaction: expect.closeTo(expected, 12) });
  });

  it("skips an episode at or before the applied sequence, so a replay applies nothing twice", () => {
    const random = mulberry32(3);
    const state = new AdaptiveState();
    const e = episode(state, "q", [1, 0], 7, random);
    expect(state.update(e, "seed").applied).toBe(true);
    const before = JSON.stringify(state);
    expect(state.update(e, "seed")).toEqual({ applied: false });
    expect(state.update({ ...e, sequence: 6 }, "seed")).toEqual({ applied: false });
    expect(JSON.stringify(state)).toBe(before);
  });

  it("never produces NaN or a non-positive alpha or beta, whatever the episodes (property)", () => {
    const outcome = fc.record({
      taskCompleted: fc.boolean(),
      followUps: fc.nat(5),
      corrections: fc.nat(3),
      hedging: fc.boolean(),
      prefetched: fc.nat(30),
      used: fc.nat(30),
      searches: fc.nat(10),
      rule: fc.constantFrom<UpdateRule>("advantage", "seed"),
      extreme: fc.option(fc.constantFrom(0, 1, -5, 7, 1e-300), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.integer(), fc.array(outcome, { minLength: 1, maxLength: 120 }), (seed, outcomes) => {
        const random = mulberry32(seed);
        const state = new AdaptiveState();
        outcomes.forEach((o, i) => {
          const e = episode(state, `q${i % 7}`, [i % 3, (i + 1) % 2, 1], i + 1, random, {
            taskCompleted: o.taskCompleted,
            followUps: o.followUps,
            corrections: o.corrections,
            hedging: o.hedging,
            prefetchedKeys: Array.from({ length: o.prefetched }, (_, k) => `p${k}`),
            usedKeys: Array.from({ length: o.used }, (_, k) => `p${k}`),
            searchedAfter: Array.from({ length: o.searches }, (_, k) => `s${k}`),
          });
          // Samples outside [0, 1] must not break the Beta.
          if (o.extreme !== undefined) e.sampledThresholds = { ...e.sampledThresholds, confidence: o.extreme };
          state.update(e, o.rule);
        });
        for (const p of state.parameters()) {
          expect(p.alpha).toBeGreaterThan(0);
          expect(p.beta).toBeGreaterThan(0);
          expect(Number.isFinite(p.mean) && Number.isFinite(p.effectiveSamples)).toBe(true);
        }
      }),
      { seed: 13, numRuns: 200 },
    );
  });

  it("the advantage rule moves toward the optimum, below the prior or above it; the mirror drifts to 0.5 whatever the optimum", () => {
    const mirror = { ...DEFAULT_UPDATE_CONFIG, negativeEvidence: "mirror" as const };
    for (const seed of [1, 2, 3, 4]) {
      // The mirror: about the same mean whether the optimum is below the prior or above it, and far from both.
      const mirrored = [simulate("advantage", seed, 300, 0.95, mirror), simulate("advantage", seed, 300, 0.6, mirror)];
      expect(Math.abs((mirrored[0] as number) - (mirrored[1] as number))).toBeLessThan(0.02);
      for (const mean of mirrored) expect(mean).toBeLessThan(0.6);
      // The reflection: up from the prior (0.85) for an optimum above it, and clearly lower for one below it.
      const high = simulate("advantage", seed, 300, 0.95);
      expect(high).toBeGreaterThan(0.86);
      expect(simulate("advantage", seed, 300, 0.6)).toBeLessThan(high - 0.03);
    }
  });

  it("plays each threshold as near the prior as its evidence allows, and learns from draws it did not play, scored on the episode's candidates", () => {
    // One candidate the run needs at confidence 0.8: a floor above it leaves it out and costs a search.
    const candidates = [{ key: "a", path: "a.ts", confidence: 0.8, excerptTokens: 10_000, summaryTokens: 10 }];
    const random = mulberry32(5);
    const state = new AdaptiveState();
    const played: number[] = [];
    for (let i = 1; i <= 200; i++) {
      const belief = state.distribution("thresholds.confidence");
      const sample = state.sample(state.contexts.classify("fix the parser", [1, 0, 0]), random);
      const value = sample.sampledThresholds.confidence;
      // Between the prior's 0.85 and the belief's mean, and one posterior standard deviation from the mean at most.
      expect(value).toBeLessThanOrEqual(Math.max(0.85, belief.mean()) + 1e-12);
      expect(value).toBeGreaterThanOrEqual(Math.min(0.85, belief.mean()) - 1e-12);
      expect(Math.abs(value - belief.mean())).toBeLessThanOrEqual(Math.sqrt(belief.variance()) + 1e-12);
      played.push(value);
      const injected = value <= 0.8;
      state.update(
        {
          ...episode(state, "fix the parser", [1, 0, 0], i, random),
          ...sample,
          prefetchedKeys: injected ? ["a"] : [],
          usedKeys: injected ? ["a"] : [],
          searchedAfter: injected ? [] : ["where is the parser"],
          prefetchRounds: [{ candidates, remainingTokens: 100_000, penalty: 1, neededKeys: ["a"] }],
          budgetRatio: 0.1,
        },
        "advantage",
      );
    }
    // The priors at first; below the needed candidate's 0.8 once the evidence says so.
    expect(played[0]).toBe(0.85);
    expect(state.distribution("thresholds.confidence").mean()).toBeLessThan(0.8);
    expect(played.at(-1)).toBeLessThan(0.8);
    // Without prefetch records a threshold that is not drawn has nothing to learn from: it stays put.
    const still = new AdaptiveState();
    for (let i = 1; i <= 20; i++)
      still.update(episode(still, "q", [1, 0, 0], i, random, { searchedAfter: i % 2 ? ["x"] : [] }), "advantage");
    expect(still.distribution("thresholds.confidence").toJSON()).toEqual(
      new AdaptiveState().distribution("thresholds.confidence").toJSON(),
    );
  });

  it('plays each weight at the prior\'s mean, and a weight it did not draw learns nothing; "draw" keeps the Thompson draws', () => {
    const random = mulberry32(11);
    const state = new AdaptiveState();
    const priors = { taskSuccess: 0.8, relevanceBonus: 0.3, strugglePenalty: 0.4, wastePenalty: 0.1 };
    const before = Object.fromEntries(
      PARAMETER_NAMES.filter((name) => name.startsWith("weights.")).map((name) => [name, state.distribution(name).toJSON()]),
    );
    for (let i = 1; i <= 60; i++) {
      // Outcomes that swing far from the context's baseline: the running-baseline advantage the weights learned from.
      const e = episode(state, "fix the parser", [1, 0, 0], i, random, {
        taskCompleted: i % 3 !== 0,
        searchedAfter: i % 2 ? ["where is the parser"] : [],
        hedging: i % 5 === 0,
      });
      expect(e.sampledWeights).toEqual(priors);
      state.update(e, "advantage");
    }
    for (const [name, json] of Object.entries(before))
      expect(state.distribution(name as (typeof PARAMETER_NAMES)[number]).toJSON()).toEqual(json);
    expect(state.parameters()[1]).toMatchObject({ name: "weights.relevanceBonus", played: 0.3 });

    // The original rule: a draw every prompt, and the belief moves on the outcomes.
    const drawing = new AdaptiveState({ ...DEFAULT_UPDATE_CONFIG, weights: "draw" });
    const relevance = new Set<number>();
    for (let i = 1; i <= 60; i++) {
      const e = episode(drawing, "fix the parser", [1, 0, 0], i, random, { searchedAfter: i % 2 ? ["x"] : [] });
      relevance.add(e.sampledWeights.relevanceBonus);
      drawing.update(e, "advantage");
    }
    expect(relevance.size).toBe(60);
    expect(drawing.distribution("weights.relevanceBonus").toJSON()).not.toEqual(before["weights.relevanceBonus"]);
    expect(drawing.parameters()[1]).not.toHaveProperty("played");
  });

  it("round-trips through JSON: the copy samples and learns exactly like the original", () => {
    const random = mulberry32(4);
    const state = new AdaptiveState();
    for (let i = 1; i <= 30; i++) {
      state.update(
        episode(state, `q${i % 4}`, [i % 2, 1 - (i % 2), 0.5], i, random, {
          searchedAfter: i % 3 ? [] : ["x", "y", "z"],
          taskCompleted: i % 5 !== 0,
        }),
        "advantage",
      );
    }
    const copy = AdaptiveState.fromJSON(JSON.parse(JSON.stringify(state)));
    expect(copy.toJSON()).toEqual(state.toJSON());
    const next = episode(state, "q0", [0, 1, 0.5], 31, mulberry32(9));
    expect(copy.sample("ctx_0", mulberry32(9))).toEqual(state.sample("ctx_0", mulberry32(9)));
    copy.update(next, "advantage");
    state.update(next, "advantage");
    expect(copy.toJSON()).toEqual(state.toJSON());
  });

  it("refuses damaged state with an error that says what is damaged", () => {
    const good = new AdaptiveState().toJSON();
    expect(() => AdaptiveState.fromJSON("nonsense")).toThrow(/damaged learning state: unknown version/);
    expect(() => AdaptiveState.fromJSON({ ...good, parameters: { ...good.parameters, "thresholds.budget": undefined } })).toThrow(
      /thresholds.budget is missing/,
    );
    expect(() =>
      AdaptiveState.fromJSON({
        ...good,
        parameters: { ...good.parameters, "weights.taskSuccess": { ...good.parameters["weights.taskSuccess"], alpha: Number.NaN } },
      }),
    ).toThrow(/alpha/);
    expect(() => AdaptiveState.fromJSON({ ...good, appliedSequence: -1 })).toThrow(/appliedSequence/);
    expect(() => AdaptiveState.fromJSON({ ...good, profile: { ...good.profile, wastePenaltyMult: 9 } })).toThrow(/wastePenaltyMult/);
    expect(PARAMETER_NAMES).toHaveLength(7);
  });
});
