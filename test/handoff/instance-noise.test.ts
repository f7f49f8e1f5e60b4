import { describe, expect, it } from "vitest";
import { DegradationDetector } from "../../src/handoff/degradation-detector.js";
import type { AgentHandoffProfile } from "../../src/handoff/handoff-profile.js";
import { instanceNoiseSd, medianStepSd, stepNoiseSd } from "../../src/handoff/instance-noise.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** |y − previous y| of `count` + 1 Gaussian observations of sd `sd`, seeded. */
function steps(seed: number, count: number, sd: number): number[] {
  const random = mulberry32(seed);
  const ys = Array.from({ length: count + 1 }, () => sd * gaussian(random));
  return ys.slice(1).map((y, index) => Math.abs(y - (ys[index] as number)));
}

describe("the instance's noise", () => {
  it("is the median step over √2 / 1.4826, the two middle steps' mean for an even count", () => {
    expect(medianStepSd([0.04, 0.01, 0.03])).toBeCloseTo((1.4826 * 0.03) / Math.SQRT2, 12);
    expect(medianStepSd([0.04, 0.01, 0.03, 0.02])).toBeCloseTo((1.4826 * 0.025) / Math.SQRT2, 12);
  });

  it("is the profile's for an instance as noisy as the profile says, where the larger of the two read it high (200 seeds)", () => {
    // Eleven steps, as at a session's median first crossing: the own estimate errs by about a third either way.
    let taken = 0;
    let larger = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const own = steps(seed, 11, 0.05);
      taken += instanceNoiseSd(own, 0.05, 5) / 0.05;
      larger += stepNoiseSd(own, 0.05, 5) / 0.05;
    }
    expect(taken / 200).toBeLessThan(1.08);
    expect(larger / 200).toBeGreaterThan(1.15);
  });

  it("is the instance's own once its steps show it clearly noisier than the profile, and the profile's before five steps", () => {
    const noisier = steps(3, 30, 0.1);
    expect(instanceNoiseSd(noisier, 0.05, 5)).toBeCloseTo(medianStepSd(noisier), 12);
    expect(instanceNoiseSd(noisier.slice(0, 4), 0.05, 5)).toBe(0.05);
    expect(stepNoiseSd(noisier.slice(0, 4), 0.05, 5)).toBe(0.05);
  });
});

const profile = (overrides: Partial<AgentHandoffProfile> = {}): AgentHandoffProfile => ({
  agentType: "engineer",
  model: "m",
  windowTokens: 200_000,
  onsetTokens: 50_000,
  onsetSdTokens: 5_000,
  neverDegradesShare: 0.15,
  peakQuality: 0.9,
  declineRatePerKiloToken: 0.01,
  degradedFraction: 0.8,
  plateauNoise: 0.06,
  expectedGrowthPerTurn: 3000,
  preparedFraction: 0.25,
  optimalPreparedSize: 12_500,
  evidence: { typeModel: 3, type: 3, all: 3 },
  ...overrides,
});

/**
 * Turns from the first at or past `onset` to the first instance's firing (Infinity: none in 60 turns; negative: before it): a decline of
 * 1 % of the peak per 1,000 tokens (0.03 a turn) in noise 0.06, 4 % of turns failed at 10-50 % of their quality, as the simulator's.
 */
function firstCrossing(seed: number, onset: number, detector: DegradationDetector): number {
  const random = mulberry32(seed);
  let context = 8_000;
  let crossed: number | undefined;
  for (let turn = 0; turn < 60; turn++) {
    if (crossed === undefined && context >= onset) crossed = turn;
    if (detector.check(context).fire) return turn - (crossed ?? turn + 1);
    const quality = 0.9 - (0.01 * Math.max(0, context - onset)) / 1000;
    const failed = random() < 0.04 ? 0.1 + 0.4 * random() : 1;
    detector.observe(context, quality * failed + 0.06 * gaussian(random));
    context += 3_000;
  }
  return Number.POSITIVE_INFINITY;
}

describe("a session's first instance reading its turns at the profile's noise", () => {
  // At one level for both, 0.957 (the defaults when the noise changed): the noise's effect, not the levels'.
  const triggers = { onsetEvidence: 0.957, onsetReached: 0.957 };
  it("crosses a decline in noise as its profile says a turn sooner at the median, never before the onset (40 seeds)", () => {
    // Read at the larger of the profile's noise and the instance's median step, the median was 6 turns (p90 7); now 5 (p90 7).
    const delays = Array.from({ length: 40 }, (_, index) =>
      firstCrossing(index + 1, 50_000, new DegradationDetector(profile(), { triggers })),
    );
    const sorted = [...delays].sort((a, b) => a - b);
    expect(sorted[0]).toBeGreaterThanOrEqual(0);
    expect(sorted[19]).toBeLessThanOrEqual(5);
    expect(sorted[35]).toBeLessThanOrEqual(7);
  });

  it("does not fire on the same noisy plateau with no onset, failed turns and all, in 39 of 40 seeds", () => {
    const fired = Array.from({ length: 40 }, (_, index) =>
      firstCrossing(index + 1, Number.POSITIVE_INFINITY, new DegradationDetector(profile({ declineRatePerKiloToken: 0.01 }), { triggers })),
    ).filter(Number.isFinite);
    expect(fired.length).toBeLessThanOrEqual(1);
  });
});
