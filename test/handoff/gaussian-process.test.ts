import { describe, expect, it } from "vitest";
import { InducingPointGP, type GpHyperparameters } from "../../src/handoff/gaussian-process.js";
import { mulberry32 } from "../helpers/random-vectors.js";

/** Matérn 5/2 written out from the formula, independent of the module's helper. */
function matern(distance: number, h: GpHyperparameters): number {
  const r = Math.abs(distance) / h.lengthScale;
  return h.signalVariance * (1 + Math.sqrt(5) * r + (5 * r * r) / 3) * Math.exp(-Math.sqrt(5) * r);
}

const H: GpHyperparameters = { lengthScale: 10, signalVariance: 0.04, noiseVariance: 0.01 };
const fixedGrid = (h: GpHyperparameters) => ({
  lengthScales: [h.lengthScale],
  signalVariances: [h.signalVariance],
  noiseVariances: [h.noiseVariance],
});
const prior = () => 0.5;

describe("InducingPointGP against closed forms", () => {
  it("before any data predicts the prior mean with the signal variance", () => {
    const gp = new InducingPointGP({ priorMean: (x) => 0.9 - 0.001 * x, grid: fixedGrid(H) });
    expect(gp.predict(40)).toEqual({ mean: 0.9 - 0.04, variance: H.signalVariance });
    expect(gp.observationCount).toBe(0);
  });

  it("one point: mean m + k r / (σf² + σn²), variance σf² − k² / (σf² + σn²)", () => {
    const gp = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H) });
    gp.add(20, 0.8);
    for (const x of [20, 23, 35]) {
      const k = matern(x - 20, H);
      const prediction = gp.predict(x);
      expect(prediction.mean).toBeCloseTo(0.5 + (k * 0.3) / (H.signalVariance + H.noiseVariance), 12);
      expect(prediction.variance).toBeCloseTo(H.signalVariance - (k * k) / (H.signalVariance + H.noiseVariance), 12);
    }
  });

  it("two points: the explicit 2×2 inverse", () => {
    const gp = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H) });
    gp.add(10, 0.7);
    gp.add(18, 0.4);
    const a = H.signalVariance + H.noiseVariance;
    const b = matern(8, H);
    const determinant = a * a - b * b;
    const inverse = [
      [a / determinant, -b / determinant],
      [-b / determinant, a / determinant],
    ];
    const r = [0.2, -0.1];
    const x = 15;
    const k = [matern(x - 10, H), matern(x - 18, H)];
    const alpha = [inverse[0]![0]! * r[0]! + inverse[0]![1]! * r[1]!, inverse[1]![0]! * r[0]! + inverse[1]![1]! * r[1]!];
    const quadratic =
      k[0]! * (inverse[0]![0]! * k[0]! + inverse[0]![1]! * k[1]!) + k[1]! * (inverse[1]![0]! * k[0]! + inverse[1]![1]! * k[1]!);
    const prediction = gp.predict(x);
    expect(prediction.mean).toBeCloseTo(0.5 + k[0]! * alpha[0]! + k[1]! * alpha[1]!, 12);
    expect(prediction.variance).toBeCloseTo(H.signalVariance - quadratic, 12);

    const joint = gp.predictJoint(12, 16);
    const kA = [matern(2, H), matern(-6, H)];
    const kB = [matern(6, H), matern(-2, H)];
    const cross =
      kA[0]! * (inverse[0]![0]! * kB[0]! + inverse[0]![1]! * kB[1]!) + kA[1]! * (inverse[1]![0]! * kB[0]! + inverse[1]![1]! * kB[1]!);
    expect(joint.covariance).toBeCloseTo(matern(4, H) - cross, 12);
    expect(joint.a.mean).toBeCloseTo(gp.predict(12).mean, 12);
    expect(joint.b.variance).toBeCloseTo(gp.predict(16).variance, 12);
  });

  it("log marginal likelihood of 3 points: explicit 3×3 determinant and inverse", () => {
    const gp = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H) });
    const xs = [5, 12, 30];
    const ys = [0.6, 0.45, 0.3];
    xs.forEach((x, i) => {
      gp.add(x, ys[i]!);
    });
    const K = xs.map((xi, i) => xs.map((xj, j) => matern(xi - xj, H) + (i === j ? H.noiseVariance : 0)));
    const [[a, b, c], [d, e, f], [g, h, i]] = K as [[number, number, number], [number, number, number], [number, number, number]];
    const determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    const adjugate = [
      [e * i - f * h, c * h - b * i, b * f - c * e],
      [f * g - d * i, a * i - c * g, c * d - a * f],
      [d * h - e * g, b * g - a * h, a * e - b * d],
    ];
    const r = ys.map((y) => y - 0.5);
    let quadratic = 0;
    for (let row = 0; row < 3; row++)
      for (let col = 0; col < 3; col++) quadratic += (r[row]! * adjugate[row]![col]! * r[col]!) / determinant;
    const expected = -0.5 * quadratic - 0.5 * Math.log(determinant) - 1.5 * Math.log(2 * Math.PI);
    expect(gp.logMarginalLikelihood(H)).toBeCloseTo(expected, 10);
  });

  it("the refit picks the grid point of highest log marginal likelihood, with and without the offset term", () => {
    for (const offsetVariance of [0, 0.01]) {
      const random = mulberry32(11);
      const gp = new InducingPointGP({ priorMean: () => 0.9, offsetVariance });
      for (let i = 0; i < 40; i++) gp.add(8 + i * 2.5, 0.85 - Math.max(0, i - 25) * 0.03 + 0.08 * (random() - 0.5));
      const grid = {
        lengthScales: [8, 16, 32, 64, 128],
        signalVariances: [0.0025, 0.01, 0.04, 0.16],
        noiseVariances: [0.000625, 0.0025, 0.01, 0.04],
      };
      let best = Number.NEGATIVE_INFINITY;
      for (const lengthScale of grid.lengthScales)
        for (const signalVariance of grid.signalVariances)
          for (const noiseVariance of grid.noiseVariances)
            best = Math.max(best, gp.logMarginalLikelihood({ lengthScale, signalVariance, noiseVariance }));
      expect(gp.logMarginalLikelihood(gp.hyperparameters)).toBeCloseTo(best, 9);
    }
  });

  it("the offset term lets the instance's level move as a whole: its prior variance adds to every covariance", () => {
    const gp = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H), offsetVariance: 0.02 });
    expect(gp.predict(100).variance).toBeCloseTo(H.signalVariance + 0.02, 12);
    gp.add(10, 0.8);
    // Far from the point the Matérn part has forgotten it; the offset has not.
    const s = H.signalVariance + 0.02 + H.noiseVariance;
    expect(gp.predict(500).mean).toBeCloseTo(0.5 + (0.02 * 0.3) / s, 9);
  });
});

describe("InducingPointGP bins", () => {
  it("200 observations fit in at most 32 bins that hold all of them", () => {
    const random = mulberry32(3);
    const gp = new InducingPointGP({ priorMean: () => 0.9 });
    for (let i = 0; i < 200; i++) gp.add(5 + i * (0.5 + random()), 0.9 + 0.05 * (random() - 0.5));
    expect(gp.observationCount).toBe(200);
    expect(gp.inducingPoints.length).toBeLessThanOrEqual(32);
    expect(gp.inducingPoints.reduce((total, bin) => total + bin.count, 0)).toBe(200);
    const sizes = gp.inducingPoints.map((bin) => bin.kiloTokens);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
  });

  it("a bin of n points at one size is one point with noise σn²/n (predictions and likelihood)", () => {
    const ys = [0.8, 0.7, 0.9, 0.75, 0.85];
    const merged = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H), maxPoints: 2 });
    const separate = new InducingPointGP({ priorMean: prior, grid: fixedGrid(H) });
    for (const gp of [merged, separate]) {
      gp.add(30, 0.4);
      for (const y of ys) gp.add(10, y);
    }
    expect(merged.inducingPoints).toEqual([
      { kiloTokens: 10, count: 5 },
      { kiloTokens: 30, count: 1 },
    ]);
    expect(separate.inducingPoints.length).toBe(6);
    // By hand: two points, the first with noise σn²/5 at the mean of its five.
    const a = H.signalVariance + H.noiseVariance / 5;
    const d = H.signalVariance + H.noiseVariance;
    const b = matern(20, H);
    const determinant = a * d - b * b;
    const r = [ys.reduce((sum, y) => sum + y, 0) / 5 - 0.5, -0.1];
    const alpha = [(d * r[0]! - b * r[1]!) / determinant, (-b * r[0]! + a * r[1]!) / determinant];
    for (const x of [10, 18, 40]) {
      const k = [matern(x - 10, H), matern(x - 30, H)];
      expect(merged.predict(x).mean).toBeCloseTo(0.5 + k[0]! * alpha[0]! + k[1]! * alpha[1]!, 10);
      expect(merged.predict(x).mean).toBeCloseTo(separate.predict(x).mean, 8);
      expect(merged.predict(x).variance).toBeCloseTo(separate.predict(x).variance, 8);
    }
    // The scatter inside the bin keeps the likelihood exact, so the noise estimate sees it.
    expect(merged.logMarginalLikelihood(H)).toBeCloseTo(separate.logMarginalLikelihood(H), 8);
  });

  it("rejects observations that are not finite", () => {
    const gp = new InducingPointGP({ priorMean: prior });
    expect(() => gp.add(Number.NaN, 0.5)).toThrow(RangeError);
  });
});
