import { describe, expect, it } from "vitest";
import { CENSORED_BUCKETS, censoredBucketOf, estimateOnset, onsetPriorOf } from "../../src/handoff/censored-onset.js";
import {
  addStatistics,
  emptyStatistics,
  type InstanceSummary,
  pooledProfile,
  PREPARED_FRACTIONS,
  priorMeanOf,
  type ProfileStatistics,
  withInstance,
} from "../../src/handoff/handoff-profile.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const summary = (overrides: Partial<InstanceSummary> = {}): InstanceSummary => ({
  observations: 20,
  maxTokens: 80_000,
  onsetTokens: 50_000,
  peakQuality: 0.9,
  declineRatePerKiloToken: 0.01,
  plateauNoise: 0.04,
  ...overrides,
});

/** An onset a session's observations placed, with an estimation error of 5 % of it. */
const locatedOnset = (onsetTokens: number) => ({ onsetTokens, onsetErrorSdTokens: 0.05 * onsetTokens });

const statisticsOf = (...summaries: InstanceSummary[]) => summaries.reduce(withInstance, emptyStatistics());

describe("profile statistics", () => {
  it("add: two sets' sum equals applying their instances in sequence (seeded)", () => {
    const random = mulberry32(17);
    for (let trial = 0; trial < 20; trial++) {
      const instances = Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
        summary({
          maxTokens: 20_000 + random() * 150_000,
          ...(random() < 0.5 ? locatedOnset(10_000 + random() * 80_000) : { onsetTokens: undefined }),
          peakQuality: 0.7 + 0.3 * random(),
          plateauNoise: 0.1 * random(),
          growthPerTurn: { count: 5, sum: 5 * 3000 * random() },
          ...(random() < 0.5 ? { preparedFraction: PREPARED_FRACTIONS[Math.floor(random() * 3)], earlyQuality: random() } : {}),
        }),
      );
      const split = Math.floor(random() * instances.length);
      const sequence = statisticsOf(...instances);
      const summed = addStatistics(statisticsOf(...instances.slice(0, split)), statisticsOf(...instances.slice(split)));
      expect(summed.instances).toBe(sequence.instances);
      expect(summed.censored).toEqual(sequence.censored);
      expect(summed.onsetErrorSquares).toBeCloseTo(sequence.onsetErrorSquares, 3);
      for (const key of ["onset", "peak", "decline", "plateauNoise"] as const) {
        expect(summed[key].count).toBe(sequence[key].count);
        expect(summed[key].sum).toBeCloseTo(sequence[key].sum, 6);
        expect(summed[key].sumSquares).toBeCloseTo(sequence[key].sumSquares, 6);
      }
      summed.preparedArms.forEach((arm, index) => {
        expect(arm.rewardSum).toBeCloseTo(sequence.preparedArms[index]!.rewardSum, 9);
      });
    }
  });

  it("is plain JSON", () => {
    const statistics = statisticsOf(summary(), summary({ onsetTokens: undefined, preparedFraction: 0.4, earlyQuality: 0.8 }));
    expect(JSON.parse(JSON.stringify(statistics))).toEqual(statistics);
  });

  it("an uncensored instance adds its onset; a censored one its bound; one the detector ended, neither", () => {
    expect(statisticsOf(summary()).onset).toEqual({ count: 1, sum: 50_000, sumSquares: 2.5e9 });
    expect(statisticsOf(summary()).onsetErrorSquares).toBe(0);
    expect(statisticsOf(summary({ onsetErrorSdTokens: 3_000 }), summary({ onsetErrorSdTokens: 4_000 })).onsetErrorSquares).toBe(25e6);
    // A bound has no estimation error: its error, if any were given, is not counted.
    expect(statisticsOf(summary({ onsetTokens: undefined, onsetErrorSdTokens: 3_000 })).onsetErrorSquares).toBe(0);
    const censored = statisticsOf(summary({ onsetTokens: undefined }));
    expect(censored.onset.count).toBe(0);
    expect(censored.censored[censoredBucketOf(80_000)]).toBe(1);
    const unknown = statisticsOf(summary({ onsetTokens: undefined, onsetUnknown: true }));
    expect(unknown.onset.count + unknown.censored.reduce((a, b) => a + b, 0)).toBe(0);
    expect(unknown.peak.count).toBe(1);
    expect(withInstance(emptyStatistics(), summary({ observations: 0 }))).toEqual(emptyStatistics());
  });
});

describe("pooledProfile", () => {
  const rows = (): Array<{ agentType: string; model: string; statistics: ProfileStatistics }> => [
    {
      agentType: "engineer",
      model: "m1",
      statistics: statisticsOf(summary({ peakQuality: 0.7, onsetTokens: 40_000 }), summary({ peakQuality: 0.9, onsetTokens: 60_000 })),
    },
    {
      agentType: "engineer",
      model: "m2",
      statistics: statisticsOf(...[0.85, 0.95, 0.9, 0.9].map((peakQuality) => summary({ peakQuality, onsetTokens: 30_000 }))),
    },
    { agentType: "designer", model: "m1", statistics: statisticsOf(summary({ peakQuality: 0.5, onsetTokens: 90_000 })) },
  ];

  it("shrinks each level toward its parent with k = 3: (n θ + k θ_parent) / (n + k)", () => {
    const profile = pooledProfile({ agentType: "engineer", model: "m1", windowTokens: 200_000, rows: rows() });
    const all = (0.7 + 0.9 + 0.85 + 0.95 + 0.9 + 0.9 + 0.5 + 3 * 0.95) / (7 + 3);
    const type = (0.7 + 0.9 + 0.85 + 0.95 + 0.9 + 0.9 + 3 * all) / (6 + 3);
    expect(profile.peakQuality).toBeCloseTo((0.7 + 0.9 + 3 * type) / (2 + 3), 12);
    expect(profile.evidence).toEqual({ typeModel: 2, type: 6, all: 7 });
  });

  it("the onset pooled by the children of each parent: all agents over the default, the type among the types, the model among its type's models", () => {
    const profile = pooledProfile({ agentType: "engineer", model: "m1", windowTokens: 200_000, rows: rows() });
    const located = (...onsets: number[]) => ({
      count: onsets.length,
      sum: onsets.reduce((total, x) => total + x, 0),
      sumSquares: onsets.reduce((total, x) => total + x * x, 0),
      errorSquares: 0,
    });
    const evidence = (...onsets: number[]) => ({ ...located(...onsets), censored: new Array<number>(CENSORED_BUCKETS).fill(0) });
    const m1 = [40_000, 60_000];
    const m2 = [30_000, 30_000, 30_000, 30_000];
    const designer = [90_000];
    const allOnset = estimateOnset(evidence(...m1, ...m2, ...designer), { mean: 120_000, meanSd: 30_000, sd: 30_000 }, 3);
    const typePrior = onsetPriorOf(allOnset, [located(...m1, ...m2), located(...designer)]);
    const typeOnset = estimateOnset(evidence(...m1, ...m2), typePrior, 3);
    const modelPrior = onsetPriorOf(typeOnset, [located(...m1), located(...m2)]);
    const expected = estimateOnset(evidence(...m1), modelPrior, 3);
    expect(profile.onsetTokens).toBeCloseTo(expected.mean, 6);
    expect(profile.onsetSdTokens).toBeCloseTo(expected.sd, 6);
    // Its type's other model (30k, four sessions) is far from m1's 50k next to their within-model spread: m1 keeps to its own.
    expect(Math.abs(profile.onsetTokens - 50_000)).toBeLessThan(Math.abs(typeOnset.mean - 50_000) / 2);
  });

  it("a model its type has not run yet is ready for anywhere among its siblings: σ_w² + τ², not their within-model spread", () => {
    // The engineer's two models: m1's sessions about 50k, m2's at 30k; m3 has none. Its sessions' onsets may lie as far
    // from the type's mean as m1's and m2's do, so its first session's prior is wider than either model's own spread.
    const m3 = pooledProfile({ agentType: "engineer", model: "m3", windowTokens: 200_000, rows: rows() });
    const m1 = pooledProfile({ agentType: "engineer", model: "m1", windowTokens: 200_000, rows: rows() });
    const engineerRows = rows().filter((row) => row.agentType === "engineer");
    const located = (statistics: ProfileStatistics) => ({ ...statistics.onset, errorSquares: statistics.onsetErrorSquares });
    const prior = onsetPriorOf(
      { mean: m3.onsetTokens, sd: 0 },
      engineerRows.map((row) => located(row.statistics)),
    );
    expect(m3.onsetSdTokens).toBeCloseTo(Math.sqrt(prior.sd ** 2 + prior.meanSd ** 2), 6);
    expect(prior.meanSd).toBeGreaterThan(prior.sd);
    // Wider than a model with sessions of its own, and than the within-model spread it took before (σ_w alone).
    expect(m3.onsetSdTokens).toBeGreaterThan(1.4 * prior.sd);
    expect(m3.onsetSdTokens).toBeGreaterThan(m1.onsetSdTokens);
  });

  it("a type with no data gets its parent's values", () => {
    const librarian = pooledProfile({ agentType: "librarian", model: "m1", windowTokens: 200_000, rows: rows() });
    const all = (0.7 + 0.9 + 0.85 + 0.95 + 0.9 + 0.9 + 0.5 + 3 * 0.95) / 10;
    expect(librarian.peakQuality).toBeCloseTo(all, 12);
    expect(librarian.evidence).toEqual({ typeModel: 0, type: 0, all: 7 });
  });

  it("with no data at all, the built-in default: onset at 60 % of the window, peak 0.95, 1 % per 1,000 tokens", () => {
    const profile = pooledProfile({ agentType: "engineer", model: "m", windowTokens: 100_000, rows: [] });
    expect(profile.onsetTokens).toBeCloseTo(60_000, 6);
    expect(profile.peakQuality).toBeCloseTo(0.95, 12);
    expect(profile.declineRatePerKiloToken).toBeCloseTo(0.01, 12);
    expect(profile.preparedFraction).toBe(0.25);
    expect(profile.optimalPreparedSize).toBeCloseTo(15_000, 6);
    expect(profile.degradedFraction).toBeCloseTo(1 - (2.5 * 0.04) / 0.95, 12);
  });

  it("unpooled: (type, model) over the built-in default only", () => {
    const profile = pooledProfile({ agentType: "engineer", model: "m1", windowTokens: 200_000, rows: rows(), pooling: false });
    expect(profile.peakQuality).toBeCloseTo((0.7 + 0.9 + 3 * 0.95) / 5, 12);
  });

  it("censored bounds raise the onset only where they exceed it, and not from sessions that never degraded", () => {
    const base = [summary({ onsetTokens: 50_000 }), summary({ onsetTokens: 52_000 }), summary({ onsetTokens: 48_000 })];
    const onsetWith = (...more: InstanceSummary[]) =>
      pooledProfile({
        agentType: "e",
        model: "m",
        windowTokens: 100_000,
        rows: [{ agentType: "e", model: "m", statistics: statisticsOf(...base, ...more) }],
        pooling: false,
      }).onsetTokens;
    const plain = onsetWith();
    // A bound far below is a session near the mean: it moves the pooled onset only through the parent's weight (≈ 0.2 %).
    expect(onsetWith(summary({ onsetTokens: undefined, maxTokens: 20_000 }))).toBeCloseTo(plain, -3);
    expect(
      onsetWith(summary({ onsetTokens: undefined, maxTokens: 62_000 }), summary({ onsetTokens: undefined, maxTokens: 62_000 })),
    ).toBeGreaterThan(plain + 1000);
    expect(onsetWith(summary({ onsetTokens: undefined, maxTokens: 400_000 }))).toBeCloseTo(plain, -2);
  });

  it("the never-degrading share is over sessions: the instances a session handed off do not dilute it", () => {
    // 20 sessions of five instances each: four hand off (no onset of their own), the fifth reports the session's.
    // 8 sessions never degrade (censored far past the onset), 12 place an onset near 50,000.
    const sessions = Array.from({ length: 20 }, (_, index) => [
      ...Array.from({ length: 4 }, () => summary({ onsetTokens: undefined, onsetUnknown: true, handedOff: true })),
      index < 8 ? summary({ onsetTokens: undefined, maxTokens: 190_000 }) : summary({ onsetTokens: 48_000 + 400 * index }),
    ]);
    const statistics = statisticsOf(...sessions.flat());
    expect(statistics).toMatchObject({ instances: 100, sessions: 20 });
    const never = (stats: ProfileStatistics) =>
      pooledProfile({
        agentType: "e",
        model: "m",
        windowTokens: 200_000,
        rows: [{ agentType: "e", model: "m", statistics: stats }],
        pooling: false,
      }).neverDegradesShare;
    // The built-in default's 20 % as 3 pseudo-sessions: (8 + 3 × 0.2) / (20 + 3), not (8 + 0.6) / (100 + 3).
    expect(never(statistics)).toBeCloseTo((8 + 3 * 0.2) / (20 + 3), 12);
    // A row written before sessions were counted: the sessions that reported an onset or a bound, at least.
    expect(never({ ...statistics, sessions: 0 })).toBeCloseTo((8 + 3 * 0.2) / (20 + 3), 12);
  });

  it("the onset's spread is the sessions', without their estimates' error: a new session's prior is not widened by it", () => {
    const onsets = [40_000, 44_000, 48_000, 52_000, 56_000, 60_000];
    const spreadWith = (errorSdTokens: number) =>
      pooledProfile({
        agentType: "e",
        model: "m",
        windowTokens: 200_000,
        rows: [
          {
            agentType: "e",
            model: "m",
            statistics: statisticsOf(...onsets.map((onsetTokens) => summary({ onsetTokens, onsetErrorSdTokens: errorSdTokens }))),
          },
        ],
        pooling: false,
      }).onsetSdTokens;
    // Unpooled, over the default (onset 120,000, 30,000 both as τ and as σ_w): the sessions' spread about their mean less
    // their errors and 3 pseudo-observations of σ_w², over n − 1 + 3, and the mean's posterior variance (the mean of n
    // estimates errs by (n σ² + Σe²) / n²).
    const moments = (errorSquares: number) => {
      const count = onsets.length;
      const ownMean = onsets.reduce((total, x) => total + x, 0) / count;
      const spread = onsets.reduce((total, x) => total + (x - ownMean) ** 2, 0) - errorSquares + 3 * 30_000 ** 2;
      const variance = spread / (count - 1 + 3);
      return Math.sqrt(variance + 1 / (count ** 2 / (count * variance + errorSquares) + 1 / 30_000 ** 2));
    };
    expect(spreadWith(0)).toBeCloseTo(moments(0), 3);
    expect(spreadWith(6_000)).toBeCloseTo(moments(6 * 6_000 ** 2), 3);
    expect(spreadWith(6_000)).toBeLessThan(spreadWith(0));
  });

  it("the degraded fraction is clamped to [0.6, 0.95]", () => {
    const noisy = statisticsOf(...Array.from({ length: 30 }, () => summary({ plateauNoise: 0.3 })));
    const quiet = statisticsOf(...Array.from({ length: 30 }, () => summary({ plateauNoise: 0 })));
    const of = (statistics: ProfileStatistics) =>
      pooledProfile({ agentType: "e", model: "m", windowTokens: 1e5, rows: [{ agentType: "e", model: "m", statistics }] }).degradedFraction;
    expect(of(noisy)).toBe(0.6);
    expect(of(quiet)).toBe(0.95);
  });

  it("picks the best prepared arm once each has 3 results; Thompson-samples before", () => {
    const results = (fraction: number, reward: number, count: number) =>
      Array.from({ length: count }, () => summary({ preparedFraction: fraction, earlyQuality: reward }));
    const settled = statisticsOf(...results(0.15, 0.6, 3), ...results(0.25, 0.7, 3), ...results(0.4, 0.9, 3));
    const rowsOf = (statistics: ProfileStatistics) => [{ agentType: "e", model: "m", statistics }];
    const random = mulberry32(1);
    for (let draw = 0; draw < 20; draw++)
      expect(pooledProfile({ agentType: "e", model: "m", windowTokens: 2e5, rows: rowsOf(settled), random }).preparedFraction).toBe(0.4);
    const young = statisticsOf(...results(0.4, 0.9, 1));
    const chosen = new Set(
      Array.from(
        { length: 60 },
        () => pooledProfile({ agentType: "e", model: "m", windowTokens: 2e5, rows: rowsOf(young), random }).preparedFraction,
      ),
    );
    expect(chosen.size).toBeGreaterThan(1);
    expect(pooledProfile({ agentType: "e", model: "m", windowTokens: 2e5, rows: rowsOf(young) }).preparedFraction).toBe(0.4);
  });

  it("keeps the prepared size within [2,000 tokens, 30 % of the window]", () => {
    const early = statisticsOf(...Array.from({ length: 40 }, () => summary({ onsetTokens: 4000 })));
    expect(
      pooledProfile({ agentType: "e", model: "m", windowTokens: 2e5, rows: [{ agentType: "e", model: "m", statistics: early }] })
        .optimalPreparedSize,
    ).toBe(2000);
    const late = statisticsOf(...Array.from({ length: 40 }, () => summary({ onsetTokens: 2_000_000 })));
    expect(
      pooledProfile({ agentType: "e", model: "m", windowTokens: 1e6, rows: [{ agentType: "e", model: "m", statistics: late }] })
        .optimalPreparedSize,
    ).toBeCloseTo(300_000, 6);
  });
});

describe("priorMeanOf", () => {
  it("is the plateau up to the onset, then the decline, floored at 0", () => {
    const profile = pooledProfile({ agentType: "e", model: "m", windowTokens: 100_000, rows: [] });
    const mean = priorMeanOf(profile);
    expect(mean(10)).toBeCloseTo(0.95, 12);
    expect(mean(60)).toBeCloseTo(0.95, 12);
    expect(mean(70)).toBeCloseTo(0.85, 12);
    expect(mean(500)).toBe(0);
  });
});
