import { describe, expect, it } from "vitest";
import {
  createPosterior,
  effectiveSampleSize,
  GRID_LOG_MASS,
  GRID_POINTS,
  logSumExp,
  observationLogLikelihood,
  onsetsOf,
  OUTLIER_RATE,
  type Pair,
  type Particle,
  parameterBox,
  predictive,
  sessionCells,
  sessionLogLikelihood,
  systematicIndices,
} from "../../scripts/lib/handoff-learning-reference.mjs";

const normalDensity = (z: number) => Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);

describe("the observation likelihood (noise and the 4 % outlier process)", () => {
  const sd = 0.05;
  const expected = 0.9;
  // The outliers are uniform over [0.1 × expected − 2 sd, 0.5 × expected + 2 sd] = [−0.01, 0.55].
  const low = 0.1 * expected - 2 * sd;
  const high = 0.5 * expected + 2 * sd;

  it("is the normal inlier alone outside the outliers' band", () => {
    const inlier = ((1 - OUTLIER_RATE) * normalDensity((0.93 - expected) / sd)) / sd;
    expect(observationLogLikelihood(sd, expected, 0.93)).toBeCloseTo(Math.log(inlier), 12);
  });

  it("adds the outliers' uniform density inside the band", () => {
    const observed = 0.3; // 12 sds below: the inlier is negligible, the outlier term is the likelihood
    const closed = Math.log(((1 - OUTLIER_RATE) * normalDensity((observed - expected) / sd)) / sd + OUTLIER_RATE / (high - low));
    expect(observationLogLikelihood(sd, expected, observed)).toBeCloseTo(closed, 12);
    expect(observationLogLikelihood(sd, expected, observed)).toBeCloseTo(Math.log(0.04 / 0.56), 12);
  });

  it("is a density: it integrates to one over the observed quality", () => {
    const step = 1e-4;
    let mass = 0;
    for (let y = -1; y <= 2; y += step) mass += Math.exp(observationLogLikelihood(sd, expected, y)) * step;
    expect(mass).toBeCloseTo(1, 3);
  });
});

describe("systematic resampling", () => {
  const weights = [0.31, 0.005, 0.2, 0.0, 0.145, 0.09, 0.25];
  const n = weights.length;
  const offsets = Array.from({ length: 20_000 }, (_, k) => ((k + 0.5) / 20_000) * (1 / n));
  const countsAt = (u0: number) => {
    const counts = new Array(n).fill(0);
    for (const i of systematicIndices(weights, u0)) counts[i]++;
    return counts;
  };

  it("draws each particle n × its weight times in expectation over the offset", () => {
    const total = new Array(n).fill(0);
    for (const u0 of offsets) {
      countsAt(u0).forEach((c, i) => {
        total[i] += c / offsets.length;
      });
    }
    for (const [i, c] of total.entries()) expect(c).toBeCloseTo(n * (weights[i] ?? 0), 3);
  });

  it("draws each particle the floor or the ceiling of n × its weight at every offset, and no zero-weight one", () => {
    for (const u0 of offsets.filter((_, k) => k % 10 === 0)) {
      countsAt(u0).forEach((c, i) => {
        const target = n * (weights[i] ?? 0);
        expect(c).toBeGreaterThanOrEqual(Math.floor(target - 1e-9));
        expect(c).toBeLessThanOrEqual(Math.ceil(target + 1e-9));
      });
    }
  });
});

/** A pair of one particle (all the weight on it). */
const onePair = (v: Particle): Pair => ({
  particles: [v],
  logw: new Float64Array(1),
  lik: new Float64Array(1),
  data: [],
  moves: 0,
  accepted: 0,
  proposed: 0,
});
const particle = (never: number): Particle => [Math.log(40_000), 0.1, Math.log(0.1), 0.9, Math.log(0.015), 0.05, never];

describe("the session's onset grid", () => {
  it("has a marginal that sums to one: the grid's normal masses, then 'never'", () => {
    expect(GRID_LOG_MASS).toHaveLength(GRID_POINTS);
    expect(Math.exp(logSumExp(GRID_LOG_MASS))).toBeCloseTo(1, 3);
    expect(predictive(sessionCells(onePair(particle(0)), 0.5), Number.POSITIVE_INFINITY).p).toBe(1);
    expect(predictive(sessionCells(onePair(particle(0.2)), 0.5), Number.POSITIVE_INFINITY).p).toBeCloseTo(0.8, 3);
  });

  it("puts half the degrading mass below the particle's mean onset at the session's point of the run", () => {
    const v = particle(0.2);
    const mean = Math.exp(v[0] ?? 0) * (1 + (v[1] ?? 0) * 0.5);
    const cells = sessionCells(onePair(v), 0.5);
    expect(predictive(cells, mean).p).toBeCloseTo(0.4, 3);
    expect(predictive(cells, mean).mean / (mean * Math.exp(0.5 * 0.1 * 0.1))).toBeCloseTo(1, 4); // the log-normal's mean
  });
});

describe("a session's likelihood under a particle", () => {
  it("is the sum over its onset grid and 'never' of each case's product over the turns", () => {
    const v = particle(0.15);
    const xs = [10_000, 25_000, 38_000, 44_000, 52_000, 60_000];
    const ys = [0.91, 0.88, 0.3, 0.84, 0.78, 0.7];
    const d = { xs, ys, progress: 0.25 };
    const [, , , peak = 0, logRate = 0, sd = 0, never = 0] = v;
    const terms = onsetsOf(v, d.progress).map((onset, g) => {
      let sum = Math.log(1 - never) + (GRID_LOG_MASS[g] ?? 0);
      xs.forEach((x, t) => {
        const expected = x <= onset ? peak : Math.max(0, peak - (Math.exp(logRate) / 1000) * (x - onset));
        sum += observationLogLikelihood(sd, expected, ys[t] ?? 0);
      });
      return sum;
    });
    terms.push(Math.log(never) + ys.reduce((a, y) => a + observationLogLikelihood(sd, peak, y), 0));
    expect(sessionLogLikelihood(v, d)).toBeCloseTo(logSumExp(terms), 9);
  });
});

describe("resample-move", () => {
  it("leaves equal weights, the particles inside the prior's box, once the effective sample size falls below half", () => {
    let state = 7;
    const random = () => {
      state = (state * 16_807) % 2_147_483_647;
      return state / 2_147_483_647;
    };
    const gaussian = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    const box = parameterBox(200_000);
    const posterior = createPosterior({ particles: 40, random, gaussian, box });
    const pair = posterior.pairOf("engineer/model-a");
    const xs = Array.from({ length: 30 }, (_, t) => 8_000 + 3_000 * t);
    const ys = xs.map((x) => (x < 50_000 ? 0.9 : Math.max(0, 0.9 - 0.0002 * (x - 50_000))));
    posterior.learnFrom(pair, { xs, ys, progress: 0 });
    expect(pair.moves).toBe(1);
    expect(effectiveSampleSize(pair.logw)).toBeCloseTo(40, 9);
    const outside = pair.particles.flatMap((v) =>
      v.filter((x, i) => !(x >= (box[i]?.[1] ?? Number.NaN) && x <= (box[i]?.[2] ?? Number.NaN))),
    );
    expect(outside).toEqual([]);
  });
});
