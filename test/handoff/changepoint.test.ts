import { describe, expect, it } from "vitest";
import { fitChangepoint } from "../../src/handoff/changepoint.js";
import { fitChangepointExhaustively } from "../helpers/changepoint-exhaustive.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const hinge = (tokens: number, onset: number) => 0.9 - (0.012 * Math.max(0, tokens - onset)) / 1000;

describe("fitChangepoint", () => {
  it("recovers a noiseless hinge exactly, also with the onset between two observed sizes", () => {
    for (const onset of [42_500, 45_000, 61_234]) {
      const points = Array.from({ length: 25 }, (_, i) => ({ tokens: 5000 + i * 3500, quality: hinge(5000 + i * 3500, onset) })).reverse();
      const fit = fitChangepoint(points);
      expect(fit.onsetTokens).toBeCloseTo(onset, 3);
      expect(fit.plateau).toBeCloseTo(0.9, 9);
      expect(fit.declineRatePerKiloToken).toBeCloseTo(0.012, 9);
      expect(fit.plateauNoise).toBeCloseTo(0, 9);
      expect(fit.maxTokens).toBe(5000 + 24 * 3500);
    }
  });

  it("finds no onset in flat noise: at most 1 of 100 seeded series", () => {
    let found = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const random = mulberry32(seed);
      const points = Array.from({ length: 40 }, (_, i) => ({ tokens: 8000 + i * 3000, quality: 0.9 + 0.05 * gaussian(random) }));
      const fit = fitChangepoint(points);
      if (fit.onsetTokens !== undefined) found++;
      else expect(fit.declineRatePerKiloToken).toBe(0);
    }
    expect(found).toBeLessThanOrEqual(1);
  });

  it("finds a real decline in the same noise", () => {
    const random = mulberry32(7);
    const points = Array.from({ length: 40 }, (_, i) => ({
      tokens: 8000 + i * 3000,
      quality: hinge(8000 + i * 3000, 70_000) + 0.05 * gaussian(random),
    }));
    const fit = fitChangepoint(points);
    expect(fit.onsetTokens).toBeGreaterThan(55_000);
    expect(fit.onsetTokens).toBeLessThan(85_000);
  });

  it("a censored instance reports its largest size, whatever the order of its points", () => {
    const fit = fitChangepoint([
      { tokens: 30_000, quality: 0.9 },
      { tokens: 90_000, quality: 0.91 },
      { tokens: 10_000, quality: 0.89 },
      { tokens: 50_000, quality: 0.9 },
      { tokens: 70_000, quality: 0.9 },
    ]);
    expect(fit.onsetTokens).toBeUndefined();
    expect(fit.maxTokens).toBe(90_000);
    expect(fit.plateau).toBeCloseTo(0.9, 9);
  });

  it("a decline too short to be significant is kept only when significance is waived", () => {
    const random = mulberry32(2);
    const points = Array.from({ length: 12 }, (_, i) => ({ tokens: 10_000 + i * 3000, quality: 0.9 + 0.04 * gaussian(random) }));
    points.push({ tokens: 46_000, quality: 0.8 }, { tokens: 49_000, quality: 0.78 });
    expect(fitChangepoint(points).onsetTokens).toBeUndefined();
    const waived = fitChangepoint(points, { requireSignificance: false });
    expect(waived.onsetTokens).toBeGreaterThan(35_000);
    expect(waived.onsetTokens).toBeLessThan(49_000);
  });

  it("its noise is robust: one very bad turn barely moves it", () => {
    const random = mulberry32(5);
    const points = Array.from({ length: 30 }, (_, i) => ({ tokens: 10_000 + i * 3000, quality: 0.9 + 0.03 * gaussian(random) }));
    const clean = fitChangepoint(points).plateauNoise;
    points[10] = { tokens: points[10]!.tokens, quality: 0.2 };
    expect(fitChangepoint(points).plateauNoise).toBeLessThan(clean * 1.25);
  });

  it("finds the same fit as trying every onset with a pass over all points", () => {
    const random = mulberry32(11);
    let declines = 0;
    for (let series = 0; series < 300; series++) {
      const n = 5 + Math.floor(random() * 120);
      // Noiseless series decline: a flat one without noise differs from its mean only by rounding, and is no test of the search.
      const flat = series % 5 === 0;
      const noise = [flat ? 0.02 : 0, 0.01, 0.05][series % 3] as number;
      // Some noisy series repeat sizes (a turn that added nothing). Without noise, a decline
      // seen only at repeated sizes fits perfectly at many onsets, and which one the search
      // names depends on rounding.
      const repeats = noise > 0 && series % 4 === 0;
      const step = 500 + Math.floor(random() * 2500);
      const sizes = Array.from({ length: n }, (_, i) => 5000 + (repeats ? Math.floor(i / 3) : i) * step);
      const onset = 5000 + random() * 0.8 * ((sizes.at(-1) as number) - 5000);
      const points = sizes
        .map((tokens) => ({ tokens, quality: (flat ? 0.9 : hinge(tokens, onset)) + noise * gaussian(random) }))
        .sort(() => random() - 0.5);
      for (const requireSignificance of [true, false]) {
        const fast = fitChangepoint(points, { requireSignificance });
        const exhaustive = fitChangepointExhaustively(points, { requireSignificance });
        expect(fast).toEqual(exhaustive);
        if (fast.onsetTokens !== undefined) declines++;
      }
    }
    // The comparison covered fits with an onset, not only constants.
    expect(declines).toBeGreaterThan(200);
  });

  it("too few points are a constant", () => {
    expect(fitChangepoint([]).maxTokens).toBe(0);
    expect(
      fitChangepoint([
        { tokens: 1, quality: 1 },
        { tokens: 2, quality: 0.5 },
        { tokens: 3, quality: 0.1 },
      ]).onsetTokens,
    ).toBeUndefined();
  });
});
