import { describe, expect, it } from "vitest";
import {
  emptyStatistics,
  type InstanceSummary,
  pooledProfile,
  type ProfileStatistics,
  withInstance,
} from "../../src/handoff/handoff-profile.js";
import { onsetGroups, onsetPseudoCount } from "../../src/handoff/onset-pooling.js";

const session = (onsetTokens: number): InstanceSummary => ({
  observations: 20,
  maxTokens: 2 * onsetTokens,
  onsetTokens,
  peakQuality: 0.9,
  declineRatePerKiloToken: 0.01,
  plateauNoise: 0.04,
});
const statisticsOf = (onsets: number[]): ProfileStatistics => onsets.map(session).reduce(withInstance, emptyStatistics());
const row = (agentType: string, model: string, onsets: number[]) => ({ agentType, model, statistics: statisticsOf(onsets) });

describe("onsetPseudoCount", () => {
  it("is σ² within a model over τ² between the type's models (method of moments)", () => {
    // Each model's sessions spread ±10,000 about its mean; the means lie 30k apart.
    const groups = onsetGroups([row("e", "a", [20_000, 40_000, 30_000]), row("e", "b", [50_000, 70_000, 60_000])]);
    const within = (2 * 10_000 ** 2 * 2) / 4;
    const between = (15_000 ** 2 * 2) / 1 - within / 3;
    expect(onsetPseudoCount(groups, groups, 3)).toBeCloseTo(within / between, 9);
    // Means far apart for their spread: no less than the floor, 0.1.
    const apart = onsetGroups([row("e", "a", [28_000, 32_000, 30_000]), row("e", "b", [58_000, 62_000, 60_000])]);
    expect(onsetPseudoCount(apart, apart, 3)).toBe(0.1);
  });

  it("falls back to the fixed k where the data cannot say", () => {
    const one = onsetGroups([row("e", "a", [28_000, 32_000, 30_000, 31_000, 29_000])]);
    expect(onsetPseudoCount(one, one, 3)).toBe(3);
    // Too few sessions within models to know σ².
    const few = onsetGroups([row("e", "a", [30_000, 31_000]), row("e", "b", [60_000])]);
    expect(onsetPseudoCount(few, few, 3)).toBe(3);
    // Models whose means lie no farther apart than their sessions' spread explains.
    const close = onsetGroups([row("e", "a", [20_000, 40_000, 30_000]), row("e", "b", [21_000, 41_000, 31_000])]);
    expect(onsetPseudoCount(close, close, 3)).toBe(3);
  });

  it("sums the rows of one (type, model) and takes the estimates' error out of the spread", () => {
    const groups = onsetGroups([row("e", "a", [30_000]), row("e", "a", [32_000]), row("d", "a", [90_000])]);
    expect(groups.map(({ agentType, count, sum }) => ({ agentType, count, sum }))).toEqual([
      { agentType: "e", count: 2, sum: 62_000 },
      { agentType: "d", count: 1, sum: 90_000 },
    ]);
  });
});

describe("a model's onset among its type's", () => {
  it("is pulled toward the type's other models only as far as the models differ", () => {
    // Two models of one type, onsets 10 % apart within a model and a factor 3 between them: a few of m1's sessions say
    // where m1's onset lies, and m2's say little about it. With k = 3 for the onset, m1's prior sat near 40,000.
    const m1 = [27_000, 33_000, 30_000, 29_000];
    const m2 = [81_000, 99_000, 90_000, 87_000, 93_000, 90_000];
    const profile = pooledProfile({
      agentType: "engineer",
      model: "m1",
      windowTokens: 200_000,
      rows: [row("engineer", "m1", m1), row("engineer", "m2", m2)],
    });
    expect(Math.abs(profile.onsetTokens - 30_000)).toBeLessThan(1_000);
    expect(profile.onsetSdTokens).toBeLessThan(6_000);
  });
});
