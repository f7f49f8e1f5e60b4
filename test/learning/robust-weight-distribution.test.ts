import { describe, expect, it } from "vitest";
import { DEFAULT_UPDATE_CONFIG, RobustWeightDistribution, type UpdateConfig } from "../../src/learning/robust-weight-distribution.js";
import { mulberry32 } from "../helpers/random-vectors.js";

/** Only the step under test is switched on. */
const bare: UpdateConfig = {
  decayFactor: 1,
  outlierThreshold: Infinity,
  minEffectiveSamples: 0,
  driftRate: 0,
  maxEffectiveSamples: Infinity,
};

function at(alpha: number, beta: number, priorAlpha = alpha, priorBeta = beta, effectiveSamples = 0): RobustWeightDistribution {
  return RobustWeightDistribution.fromJSON({ alpha, beta, priorAlpha, priorBeta, effectiveSamples });
}

describe("RobustWeightDistribution", () => {
  it("has the Beta's closed-form mean and variance", () => {
    const d = new RobustWeightDistribution(8, 2);
    expect(d.mean()).toBeCloseTo(0.8, 12);
    expect(d.variance()).toBeCloseTo((8 * 2) / (100 * 11), 12);
    expect(at(1, 9).mean()).toBeCloseTo(0.1, 12);
    expect(at(1, 9).variance()).toBeCloseTo(9 / (100 * 11), 12);
    expect(at(8.5, 1.5).mean()).toBeCloseTo(0.85, 12);
  });

  it("applies one default update exactly as computed by hand", () => {
    const d = new RobustWeightDistribution(8, 2);
    expect(d.update(0.7, 0.5)).toBe("applied");
    // decay, add 0.5·0.7 and 0.5·0.3, keep 0.5/10 of the move (cold start), drift 0.001.
    const alpha = 8 + (8 * 0.999 + 0.35 - 8) * 0.05;
    const beta = 2 + (2 * 0.999 + 0.15 - 2) * 0.05;
    expect(d.alpha).toBeCloseTo(alpha * 0.999 + 8 * 0.001, 12);
    expect(d.beta).toBeCloseTo(beta * 0.999 + 2 * 0.001, 12);
    expect(d.effectiveSamples).toBeCloseTo(0.5, 12);
  });

  it("decays evidence and drifts it back to the prior: a zero signal moves only by those two", () => {
    const d = at(20, 5, 8, 2, 50);
    d.update(0.8, 0, { ...bare, decayFactor: 0.9, driftRate: 0.1 });
    expect(d.alpha).toBeCloseTo(20 * 0.9 * 0.9 + 8 * 0.1, 12);
    expect(d.beta).toBeCloseTo(5 * 0.9 * 0.9 + 2 * 0.1, 12);
    expect(d.effectiveSamples).toBeCloseTo(45, 12);
  });

  it("moves toward the sample for a positive signal and (the mirror) away from it for a negative one, weighted by |signal|", () => {
    const toward = at(8, 2);
    toward.update(0.8, 2, bare);
    expect([toward.alpha, toward.beta]).toEqual([8 + 1.6, 2 + 0.4].map((x) => expect.closeTo(x, 12)));
    const away = at(8, 2);
    away.update(0.8, -1, { ...bare, negativeEvidence: "mirror" });
    expect(away.alpha).toBeCloseTo(8.2, 12);
    expect(away.beta).toBeCloseTo(2.8, 12);
    expect(away.mean()).toBeLessThan(0.8);
  });

  it('by default (negativeEvidence "reflect"), a negative signal puts its evidence at the sample reflected about the mean', () => {
    const reflect: UpdateConfig = bare;
    const away = at(8, 2); // mean 0.8
    away.update(0.9, -1, reflect);
    expect(away.alpha).toBeCloseTo(8.7, 12);
    expect(away.beta).toBeCloseTo(2.3, 12);
    expect(away.mean()).toBeLessThan(0.8);
    // A sample at the mean says nothing about the direction: the mean stays.
    const atMean = at(8, 2);
    atMean.update(0.8, -1, reflect);
    expect(atMean.mean()).toBeCloseTo(0.8, 12);
    // Reflected past 0 or 1, the evidence is clamped into [0, 1].
    const low = at(1, 9); // mean 0.1
    low.update(0.4, -1, reflect);
    expect([low.alpha, low.beta]).toEqual([1, 10]);
  });

  it("with a signal unrelated to the sample, the mirror drifts the mean toward 0.5 and the reflection does not", () => {
    const drift = (negativeEvidence: "mirror" | "reflect", seed: number) => {
      const d = new RobustWeightDistribution(8.5, 1.5);
      const random = mulberry32(seed);
      const config = { ...DEFAULT_UPDATE_CONFIG, negativeEvidence };
      // An advantage: as often negative as positive, whatever was drawn.
      for (let i = 0; i < 300; i++) d.update(d.sample(random), random() < 0.5 ? -0.3 : 0.3, config);
      return d.mean();
    };
    for (const seed of [1, 2, 3]) {
      expect(drift("mirror", seed)).toBeLessThan(0.7);
      expect(Math.abs(drift("reflect", seed) - 0.85)).toBeLessThan(0.04);
    }
  });

  it("rejects a sample more than three standard deviations away and leaves the belief untouched", () => {
    const d = at(80, 20, 8, 2, 100); // sd ≈ 0.04
    expect(d.update(0.2, 1)).toBe("outlier");
    expect(d.toJSON()).toEqual({ alpha: 80, beta: 20, priorAlpha: 8, priorBeta: 2, effectiveSamples: 100 });
    expect(d.update(0.75, 1)).toBe("applied");
    expect(d.alpha).not.toBe(80);
  });

  it("rejects non-finite input rather than poisoning the state", () => {
    const d = new RobustWeightDistribution(3, 7);
    expect(d.update(Number.NaN, 1)).toBe("invalid");
    expect(d.update(0.3, Number.POSITIVE_INFINITY)).toBe("invalid");
    expect(d.toJSON()).toEqual(new RobustWeightDistribution(3, 7).toJSON());
  });

  it("clamps a sample outside [0, 1] (a bias-adjusted value) so alpha and beta stay positive even with outlier rejection off", () => {
    const d = at(1, 1);
    d.update(1.5, 1, bare);
    expect([d.alpha, d.beta]).toEqual([2, 1]);
    d.update(-3, 2, bare);
    expect([d.alpha, d.beta]).toEqual([2, 3]);
  });

  it("protects the cold start: little evidence keeps the belief near the prior", () => {
    const protectedD = new RobustWeightDistribution(8, 2);
    const unprotected = new RobustWeightDistribution(8, 2);
    protectedD.update(0.6, 1, { ...bare, minEffectiveSamples: 10 });
    unprotected.update(0.6, 1, bare);
    expect(unprotected.alpha - 8).toBeCloseTo(0.6, 12);
    expect(protectedD.alpha - 8).toBeCloseTo(0.06, 12);
  });

  it("caps alpha + beta at maxEffectiveSamples without changing the mean the evidence points to", () => {
    const d = new RobustWeightDistribution(8, 2);
    for (let i = 0; i < 2000; i++) d.update(0.7, 1);
    expect(d.alpha + d.beta).toBeLessThanOrEqual(DEFAULT_UPDATE_CONFIG.maxEffectiveSamples + 1e-9);
    expect(d.alpha + d.beta).toBeGreaterThan(150);
    expect(d.mean()).toBeCloseTo(0.7, 2);
  });

  it("Thompson samples follow the distribution: seeded empirical mean and variance match the closed forms", () => {
    for (const [alpha, beta] of [
      [8, 2],
      [3, 7],
      [0.5, 0.5],
      [1, 9],
      [120, 80],
    ] as const) {
      const d = at(alpha, beta);
      const random = mulberry32(alpha * 1000 + beta);
      const n = 40_000;
      const draws = Array.from({ length: n }, () => d.sample(random));
      expect(draws.every((x) => x >= 0 && x <= 1)).toBe(true);
      const mean = draws.reduce((s, x) => s + x, 0) / n;
      const variance = draws.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
      // Five standard errors of the mean; 5 % on the variance.
      expect(Math.abs(mean - d.mean())).toBeLessThan(5 * Math.sqrt(d.variance() / n));
      expect(variance / d.variance()).toBeGreaterThan(0.95);
      expect(variance / d.variance()).toBeLessThan(1.05);
    }
  });

  it("round-trips through plain JSON and refuses damaged data", () => {
    const d = new RobustWeightDistribution(4, 6);
    d.update(0.45, 0.3);
    const copy = RobustWeightDistribution.fromJSON(JSON.parse(JSON.stringify(d)));
    expect(copy.toJSON()).toEqual(d.toJSON());
    expect(() => RobustWeightDistribution.fromJSON({ ...d.toJSON(), beta: -1 })).toThrow(/beta/);
    expect(() => RobustWeightDistribution.fromJSON({ ...d.toJSON(), alpha: "3" })).toThrow(/alpha/);
    expect(() => RobustWeightDistribution.fromJSON(null)).toThrow(/RobustWeightDistribution/);
  });
});
