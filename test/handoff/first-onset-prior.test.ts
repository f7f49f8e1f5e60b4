import { describe, expect, it } from "vitest";
import { estimateOnset } from "../../src/handoff/censored-onset.js";
import { onsetPriorOf } from "../../src/handoff/degradation-detector.js";
import { emptyStatistics, type InstanceSummary, pooledProfile, withInstance } from "../../src/handoff/handoff-profile.js";
import { type OnsetPrior, OnsetPosterior } from "../../src/handoff/onset-posterior.js";

/** A first instance's onset prior from what the profile does not know (docs/DESIGN-NOTES.md, "The first instance's onset prior"). */

const prior = (onsetDegrees?: number): OnsetPrior => ({
  onsetTokens: 60_000,
  onsetSdTokens: 6_000,
  ...(onsetDegrees === undefined ? {} : { onsetDegrees }),
  neverShare: 0.1,
  peakQuality: 0.9,
  declineRatePerKiloToken: 0.008,
  noiseSd: 0.03,
  windowTokens: 200_000,
});

/** A carried instance's evidence with nothing observed yet: its prior alone, as the session's next instance sees it. */
const nothingCarried = () => ({
  count: 0,
  sumY: 0,
  sumYSquares: 0,
  past: new Array<number>(400).fill(0),
  pastSquares: new Array<number>(400).fill(0),
  pastY: new Array<number>(400).fill(0),
  noiseSteps: [],
});

function profileAfter(sessions: number) {
  let statistics = emptyStatistics();
  for (let session = 0; session < sessions; session++) {
    const summary: InstanceSummary = {
      observations: 30,
      maxTokens: 90_000,
      onsetTokens: 60_000 + 6_000 * Math.sin(session * 2.399),
      onsetErrorSdTokens: 2_000,
      peakQuality: 0.9,
      declineRatePerKiloToken: 0.008,
      plateauNoise: 0.03,
    };
    statistics = withInstance(statistics, summary);
  }
  const rows = [{ agentType: "engineer", model: "m", statistics }];
  return pooledProfile({ agentType: "engineer", model: "m", windowTokens: 200_000, rows });
}

describe("the first instance's onset prior", () => {
  it("states the degrees its onsets' spread is estimated with: n - 1 + k", () => {
    const evidence = { count: 10, sum: 600_000, sumSquares: 10 * 60_000 ** 2 + 9 * 5_000 ** 2, errorSquares: 0, censored: [] };
    const parent = { mean: 50_000, meanSd: 20_000, sd: 10_000 };
    expect(estimateOnset(evidence, parent, 3).degrees).toBe(12);
    expect(estimateOnset({ ...evidence, count: 0, sum: 0, sumSquares: 0 }, parent, 3).degrees).toBe(2);
  });

  it("reaches the first instance's prior through the profile, and grows with the sessions", () => {
    const young = onsetPriorOf(profileAfter(2));
    const old = onsetPriorOf(profileAfter(200));
    expect(young.onsetDegrees).toBeGreaterThan(0);
    expect(young.onsetDegrees).toBeLessThan(10);
    expect(old.onsetDegrees).toBeGreaterThan(150);
  });

  it("is as narrow as its evidence for a profile of hundreds of sessions: no even share late in the window", () => {
    // Normal-like at 300 degrees: P(onset by 80k) is all of the non-"never" mass; with the 15 % even share it was 0.9 × 0.91.
    const posterior = new OnsetPosterior(prior(300));
    expect(posterior.probabilityDegradedBy(80)).toBeGreaterThan(0.895);
    expect(posterior.probabilityDegradedBy(40)).toBeLessThan(0.001);
  });

  it("is wide for a young profile: a Student-t's tails on onsets 3 sds past the mean", () => {
    const young = new OnsetPosterior(prior(2));
    const old = new OnsetPosterior(prior(300));
    const lateYoung = young.probabilityDegradedBy(200) - young.probabilityDegradedBy(80);
    const lateOld = old.probabilityDegradedBy(200) - old.probabilityDegradedBy(80);
    expect(lateYoung).toBeGreaterThan(0.02);
    expect(lateOld).toBeLessThan(0.001);
  });

  it("keeps the even share for a carried instance and for a prior without degrees", () => {
    const evenShare = 0.9 * (0.85 + (0.15 * 80) / 200);
    expect(new OnsetPosterior(prior(300), nothingCarried()).probabilityDegradedBy(80)).toBeCloseTo(evenShare, 3);
    expect(new OnsetPosterior(prior()).probabilityDegradedBy(80)).toBeCloseTo(evenShare, 3);
  });
});
