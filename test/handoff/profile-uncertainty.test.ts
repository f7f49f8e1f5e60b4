import { describe, expect, it } from "vitest";
import { DECLINE_LEVELS, declinePosterior, emptyDeclineEvidence, withSessionLikelihoods } from "../../src/handoff/decline-evidence.js";
import { DegradationDetector, onsetPriorOf } from "../../src/handoff/degradation-detector.js";
import { emptyStatistics, type InstanceSummary, pooledProfile, withInstance } from "../../src/handoff/handoff-profile.js";
import { OnsetPosterior } from "../../src/handoff/onset-posterior.js";
import { mulberry32 } from "../helpers/random-vectors.js";

/** The profile's stated uncertainty shrinks with its evidence (docs/DESIGN-NOTES.md, "The profile's uncertainty from its evidence"). */

const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** One session's log-likelihood per rate: a log-normal bump 0.3 wide about `rate` (what a session a few turns past its onset says). */
const sessionLikelihoods = (rate: number) => DECLINE_LEVELS.map((level) => -0.5 * (Math.log(level / rate) / 0.3) ** 2);

function profileAfter(sessions: number, plateauSpread: number) {
  const random = mulberry32(7);
  let statistics = emptyStatistics();
  for (let session = 0; session < sessions; session++) {
    const summary: InstanceSummary = {
      observations: 30,
      maxTokens: 90_000,
      onsetTokens: 60_000 * Math.exp(0.1 * gaussian(random)),
      onsetErrorSdTokens: 2_000,
      peakQuality: 0.9 + plateauSpread * gaussian(random),
      declineRatePerKiloToken: 0.008,
      declineLogLikelihoods: sessionLikelihoods(0.008),
      plateauNoise: 0.03,
    };
    statistics = withInstance(statistics, summary);
  }
  return pooledProfile({
    agentType: "engineer",
    model: "m",
    windowTokens: 200_000,
    rows: [{ agentType: "engineer", model: "m", statistics }],
  });
}

describe("the profile's stated uncertainty", () => {
  it("is the built-in 0.1 level sd and 0.2 rate width before any session", () => {
    const profile = profileAfter(0, 0);
    expect(profile.peakSd).toBeCloseTo(0.1, 10);
    expect(profile.declineRateLogSd).toBeCloseTo(0.2, 10);
  });

  it("narrows with the sessions: the level sd toward the plateaus' own spread, the rate's width toward its floor", () => {
    const few = profileAfter(3, 0.01);
    const many = profileAfter(200, 0.01);
    expect(many.peakSd as number).toBeLessThan(few.peakSd as number);
    expect(many.peakSd as number).toBeGreaterThan(0.008);
    expect(many.peakSd as number).toBeLessThan(0.015);
    expect(many.declineRateLogSd as number).toBeLessThan(few.declineRateLogSd as number);
    expect(many.declineRateLogSd).toBeCloseTo(0.05, 10);
    // A pair whose sessions' plateaus do differ keeps a wide level.
    expect(profileAfter(200, 0.08).peakSd as number).toBeGreaterThan(0.07);
  });

  it("states the rate's posterior sd from the summed likelihoods: 0.3/√n wide for n sessions 0.3 wide each", () => {
    let evidence = emptyDeclineEvidence();
    for (let session = 0; session < 16; session++) evidence = withSessionLikelihoods(evidence, sessionLikelihoods(0.008));
    const posterior = declinePosterior(evidence, 0.008);
    expect(posterior.rate).toBeCloseTo(0.008, 4);
    expect(posterior.logSd).toBeGreaterThan(0.06);
    expect(posterior.logSd).toBeLessThan(0.09);
  });

  it("reaches the onset posterior: its rates and its level are held as tightly as the profile says", () => {
    const wide = new OnsetPosterior(onsetPriorOf(profileAfter(0, 0)));
    const narrow = new OnsetPosterior(onsetPriorOf(profileAfter(200, 0.01)));
    expect(Math.max(...narrow.declineRateWeights())).toBeGreaterThan(0.9);
    expect(Math.max(...wide.declineRateWeights())).toBeLessThan(0.4);
    // One turn 0.06 under the peak: the wide level follows it most of the way, the narrow one hardly.
    wide.add(10, 0.84);
    narrow.add(10, 0.84);
    expect(wide.plateau()).toBeLessThan(0.86);
    expect(narrow.plateau()).toBeGreaterThan(0.88);
  });
});

describe("the peak an instance reports", () => {
  it("is its plateau, not lowered by a handoff's costly first turns nor by failed turns", () => {
    const random = mulberry32(11);
    const profile = { ...profileAfter(0, 0), peakQuality: 0.9, plateauNoise: 0.03 };
    const detector = new DegradationDetector(profile, { handedOff: true, preparedFraction: 0.25 });
    for (let turn = 0; turn < 40; turn++) {
      const cost = turn === 0 ? 0.1 : turn === 1 ? 0.05 : 0;
      const failed = turn % 10 === 5 ? 0.3 : 1;
      detector.observe(8_000 + 1_000 * turn, (0.9 - cost + 0.03 * gaussian(random)) * failed);
    }
    const reported = detector.summary().peakQuality;
    expect(Math.abs(reported - 0.9)).toBeLessThan(0.012);
  });
});
