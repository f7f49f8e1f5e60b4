import { describe, expect, it } from "vitest";
import { estimateOnset } from "../../src/handoff/censored-onset.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const NO_BOUNDS: number[] = [];
const FAR_PRIOR = { mean: 1_000_000, sd: 1 };

describe("estimateOnset: the estimates' own error is no spread of onsets", () => {
  it("closed form without bounds or pseudo-observations: sd² = (Σx² − Σe²) / n − mean²", () => {
    const onsets = [40_000, 46_000, 52_000, 58_000];
    const errors = [3_000, 1_000, 2_000, 4_000];
    const sum = onsets.reduce((total, x) => total + x, 0);
    const sumSquares = onsets.reduce((total, x) => total + x * x, 0);
    const errorSquares = errors.reduce((total, e) => total + e * e, 0);
    const estimate = estimateOnset({ count: 4, sum, sumSquares, errorSquares, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    const mean = sum / 4;
    expect(estimate.mean).toBeCloseTo(mean, 6);
    expect(estimate.sd).toBeCloseTo(Math.sqrt((sumSquares - errorSquares) / 4 - mean * mean), 6);
    // Without the errors, the spread of the estimates themselves.
    const raw = estimateOnset({ count: 4, sum, sumSquares, errorSquares: 0, censored: NO_BOUNDS }, FAR_PRIOR, 0);
    expect(raw.sd).toBeCloseTo(Math.sqrt(sumSquares / 4 - mean * mean), 6);
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

  it("the parent's pseudo-observations bring its spread as it is: the errors taken out are the child's own", () => {
    const parent = { mean: 50_000, sd: 6_000 };
    const estimate = estimateOnset({ count: 0, sum: 0, sumSquares: 0, errorSquares: 0, censored: NO_BOUNDS }, parent, 3);
    expect(estimate.mean).toBeCloseTo(parent.mean, 6);
    expect(estimate.sd).toBeCloseTo(parent.sd, 6);
  });

  it("pooled toward a parent whose mean lies elsewhere, the spread is the sessions' and the parent's, not the distance between means", () => {
    // Twenty sessions of one model at 50k ± 2k; its type's mean, over models with other onsets, at 100k ± 10k.
    const onsets = Array.from({ length: 20 }, (_, index) => 48_000 + (4_000 * index) / 19);
    const parent = { mean: 100_000, sd: 10_000 };
    const sum = onsets.reduce((total, x) => total + x, 0);
    const sumSquares = onsets.reduce((total, x) => total + x * x, 0);
    const estimate = estimateOnset({ count: 20, sum, sumSquares, errorSquares: 0, censored: NO_BOUNDS }, parent, 3);
    const mean = (sum + 3 * parent.mean) / 23;
    expect(estimate.mean).toBeCloseTo(mean, 6);
    // The sessions' squared distances from the pooled mean, and three pseudo-observations of the parent's spread.
    const spread = onsets.reduce((total, x) => total + (x - mean) ** 2, 0) + 3 * parent.sd ** 2;
    expect(estimate.sd).toBeCloseTo(Math.sqrt(spread / 23), 6);
    // Pseudo-observations at the parent's mean would have made it about three times as wide (≈ 19k; here ≈ 6.6k).
    expect(estimate.sd).toBeLessThan(8_000);
  });
});
