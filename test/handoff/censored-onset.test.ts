import { describe, expect, it } from "vitest";
import { estimateOnset, onsetPriorOf } from "../../src/handoff/censored-onset.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const NO_BOUNDS: number[] = [];
/** A parent no level is pulled toward: its children's means may lie anywhere (τ = 10¹²). */
const FAR_PRIOR = { mean: 1_000_000, meanSd: 1e12, sd: 1 };

describe("estimateOnset: the estimates' own error is no spread of onsets", () => {
  it("closed form without bounds or pseudo-observations: σ² = (Σx² − n x̄² − Σe²) / (n − 1), a new session's sd² = σ² + (n σ² + Σe²) / n²", () => {
    const onsets = [40_000, 46_000, 52_000, 58_000];
    const errors = [3_000, 1_000, 2_000, 4_000];
    const sum = onsets.reduce((total, x) => total + x, 0);
    const sumSquares = onsets.reduce((total, x) => total + x * x, 0);
    const errorSquares = errors.reduce((total, e) => total + e * e, 0);
    const estimate = estimateOnset({ count: 4, sum, sumSquares, errorSquares, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    const mean = sum / 4;
    expect(estimate.mean).toBeCloseTo(mean, 6);
    // The sessions' spread, and the uncertainty of their mean (σ² / n with the parent out of reach).
    // The mean of four estimates errs by (4 σ² + Σe²) / 16: their onsets' spread and their own errors.
    const variance = (sumSquares - 4 * mean * mean - errorSquares) / 3;
    expect(estimate.sd).toBeCloseTo(Math.sqrt(variance + (4 * variance + errorSquares) / 16), 6);
    // Without the errors, the spread of the estimates themselves.
    const raw = estimateOnset({ count: 4, sum, sumSquares, errorSquares: 0, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    expect(raw.sd).toBeCloseTo(Math.sqrt(((sumSquares - 4 * mean * mean) / 3) * (1 + 1 / 4)), 6);
  });

  it("recovers the true onsets' spread from estimates with known errors of different sizes (seeded)", () => {
    const random = mulberry32(27);
    const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const trueSd = 8_000;
    let count = 0;
    let sum = 0;
    let sumSquares = 0;
    let errorSquares = 0;
    for (let session = 0; session < 2_000; session++) {
      const onset = 50_000 + trueSd * gaussian();
      const errorSd = 3_000 + 6_000 * random();
      const estimate = onset + errorSd * gaussian();
      count++;
      sum += estimate;
      sumSquares += estimate * estimate;
      errorSquares += errorSd * errorSd;
    }
    const deconvolved = estimateOnset({ count, sum, sumSquares, errorSquares, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    const raw = estimateOnset({ count, sum, sumSquares, errorSquares: 0, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    expect(Math.abs(deconvolved.sd / trueSd - 1)).toBeLessThan(0.05);
    // The estimates alone are wider by the errors' mean square (E[e²] = 39e6 for errors uniform on 3,000–9,000).
    expect(raw.sd).toBeCloseTo(Math.sqrt(trueSd ** 2 + 39e6), -3);
    expect(Math.abs(deconvolved.mean - 50_000)).toBeLessThan(500);
  });

  it("errors as large as the estimates' whole spread leave the floor: 10 % of the onset", () => {
    const onsets = [48_000, 52_000];
    const estimate = estimateOnset(
      {
        count: 2,
        sum: 100_000,
        sumSquares: onsets.reduce((total, x) => total + x * x, 0),
        errorSquares: 2 * 5_000 ** 2,
        censored: NO_BOUNDS,
      },
      FAR_PRIOR,
      0,
    );
    expect(estimate.mean).toBeCloseTo(50_000, 6);
    expect(estimate.sd).toBeCloseTo(5_000, 6);
  });

  it("a level with no sessions of its own is a new child: N(parent mean, σ_w² + τ²), not the within-child σ_w alone", () => {
    const parent = { mean: 50_000, meanSd: 20_000, sd: 6_000 };
    const estimate = estimateOnset({ count: 0, sum: 0, sumSquares: 0, errorSquares: 0, censored: NO_BOUNDS }, parent, 3);
    expect(estimate.mean).toBeCloseTo(parent.mean, 6);
    expect(estimate.sd).toBeCloseTo(Math.sqrt(6_000 ** 2 + 20_000 ** 2), 6);
  });

  it("a new child's spread is where one session at the parent's mean starts from: the predictive sd is continuous in n", () => {
    // One session exactly at the parent's mean, with no pseudo-observations of σ_w to add: the predictive variance is σ²
    // (k σ_w² / k) plus the mean's posterior variance 1 / (1 / σ² + 1 / τ²), under the n = 0 value σ_w² + τ².
    const parent = { mean: 50_000, meanSd: 20_000, sd: 6_000 };
    const none = estimateOnset({ count: 0, sum: 0, sumSquares: 0, errorSquares: 0, censored: NO_BOUNDS }, parent, 3);
    const one = estimateOnset({ count: 1, sum: 50_000, sumSquares: 50_000 ** 2, errorSquares: 0, censored: NO_BOUNDS }, parent, 3);
    const closedOne = Math.sqrt(6_000 ** 2 + 1 / (1 / 6_000 ** 2 + 1 / 20_000 ** 2));
    expect(one.sd).toBeCloseTo(closedOne, 6);
    expect(none.sd).toBeGreaterThan(one.sd);
    // The mean's uncertainty is τ² at n = 0 and all of it is in the new child's spread: σ_w² + τ² − σ_w² = τ².
    expect(none.sd ** 2 - 6_000 ** 2).toBeCloseTo(20_000 ** 2, 0);
  });
});

/** n sessions of one model spread evenly over centre ± 12k (sd ≈ 7k, past the 10 % floor): count, Σ, Σ², no errors or bounds. */
function evenSessions(count: number, centre: number) {
  const onsets = Array.from({ length: count }, (_, index) => (count > 1 ? centre - 12_000 + (24_000 * index) / (count - 1) : centre));
  const sum = onsets.reduce((total, x) => total + x, 0);
  const sumSquares = onsets.reduce((total, x) => total + x * x, 0);
  return { count, sum, sumSquares, errorSquares: 0, censored: NO_BOUNDS };
}

/** The hierarchical normal model's closed form: σ² with k pseudo-observations of σ_w², the posterior mean, the predictive sd. */
function closedForm(sessions: ReturnType<typeof evenSessions>, prior: { mean: number; meanSd: number; sd: number }, k: number) {
  const ownMean = sessions.sum / sessions.count;
  const ownSpread = sessions.sumSquares - sessions.count * ownMean * ownMean;
  const variance = (ownSpread + k * prior.sd ** 2) / (sessions.count - 1 + k);
  const parentWeight = variance / prior.meanSd ** 2;
  const mean = (sessions.sum + parentWeight * prior.mean) / (sessions.count + parentWeight);
  const sd = Math.sqrt(variance + 1 / (sessions.count / variance + 1 / prior.meanSd ** 2));
  return { mean, sd };
}

describe("estimateOnset: pooled with the parent by what the level's own sessions say", () => {
  // One model's sessions about 50k; its type's mean, over models whose onsets lie far apart (τ = 40k), at 100k.
  const farApart = { mean: 100_000, meanSd: 40_000, sd: 7_000 };

  it("with many agreeing sessions the mean converges to theirs, not 3 / (n + 3) of the way to the type's", () => {
    const twenty = evenSessions(20, 50_000);
    const estimate = estimateOnset(twenty, farApart, 3);
    const expected = closedForm(twenty, farApart, 3);
    expect(estimate.mean).toBeCloseTo(expected.mean, 3);
    expect(estimate.sd).toBeCloseTo(expected.sd, 3);
    // Three pseudo-observations of the type would have put it at (Σx + 3 × 100k) / 23 ≈ 56.5k.
    expect(Math.abs(estimate.mean / 50_000 - 1)).toBeLessThan(0.002);
    // The spread is the model's sessions' and the within-model spread, not its type's mixture of models (τ = 40k).
    expect(estimate.sd).toBeLessThan(9_000);
    const distances = [5, 20, 80].map((count) => Math.abs(estimateOnset(evenSessions(count, 50_000), farApart, 3).mean - 50_000));
    expect(distances[1]).toBeLessThan(distances[0] as number);
    expect(distances[2]).toBeLessThan(distances[1] as number);
  });

  it("with one session among siblings that agree, it stays near the parent: its weight σ² / (σ² + τ²)", () => {
    const agreeing = { mean: 100_000, meanSd: 10_000, sd: 25_000 };
    const one = evenSessions(1, 60_000);
    const estimate = estimateOnset(one, agreeing, 3);
    // σ² = σ_w² (no spread of its own), so the parent weighs 25² / (25² + 10²) = 0.86: 94.5k, where k = 3 gave 90k.
    expect(estimate.mean).toBeCloseTo(closedForm(one, agreeing, 3).mean, 3);
    expect(estimate.mean).toBeCloseTo(100_000 - (40_000 * 10_000 ** 2) / (10_000 ** 2 + 25_000 ** 2), 3);
    // Where the siblings lie far apart, the same session stands on its own.
    expect(estimateOnset(one, { ...agreeing, meanSd: 80_000, sd: 5_000 }, 3).mean).toBeLessThan(61_000);
  });
});

describe("onsetPriorOf: the parent's children say how far a level's mean lies and how its sessions vary", () => {
  const parent = { mean: 60_000, sd: 20_000 };

  it("σ_w² is the pooled within-child spread (errors out), τ² the children's squared distances less their means' error (n σ_w² + Σe²) / n²", () => {
    const a = evenSessions(5, 40_000);
    const b = { ...evenSessions(9, 80_000), errorSquares: 9 * 500 ** 2 };
    const prior = onsetPriorOf(parent, [a, b]);
    const within = (a.sumSquares - a.sum ** 2 / 5 + (b.sumSquares - b.sum ** 2 / 9 - b.errorSquares)) / (4 + 8);
    expect(prior.sd).toBeCloseTo(Math.sqrt(within), 6);
    const between = ((40_000 - 60_000) ** 2 - within / 5 + (80_000 - 60_000) ** 2 - (9 * within + b.errorSquares) / 81) / 2;
    expect(prior.meanSd).toBeCloseTo(Math.sqrt(between), 6);
    expect(prior.mean).toBe(parent.mean);
  });

  it("children that agree within their error leave τ at the onsets' floor (10 % of the mean); none with two sessions, σ_w the parent's", () => {
    const agreeing = onsetPriorOf(parent, [evenSessions(5, 60_000), evenSessions(5, 60_100)]);
    expect(agreeing.meanSd).toBeCloseTo(6_000, 6);
    const single = onsetPriorOf(parent, [evenSessions(1, 50_000), evenSessions(1, 70_000)]);
    expect(single.sd).toBeCloseTo(parent.sd, 6);
    // Their distances (10k each) are within their means' error (σ_w = 20k): the floor again.
    expect(single.meanSd).toBeCloseTo(6_000, 6);
    const none = onsetPriorOf(parent, []);
    expect(none).toEqual({ mean: parent.mean, meanSd: parent.sd, sd: parent.sd });
  });
});
