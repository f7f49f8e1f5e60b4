import { describe, expect, it } from "vitest";
import { DECLINE_LEVELS, emptyDeclineEvidence, pooledDeclineRate, withSessionLikelihoods } from "../../src/handoff/decline-evidence.js";
import { DEFAULT_TRIGGERS, DegradationDetector } from "../../src/handoff/degradation-detector.js";
import { hingeResidualSd } from "../../src/handoff/hinge-residual.js";
import { emptyStatistics, pooledProfile, withInstance, type ProfileStatistics } from "../../src/handoff/handoff-profile.js";
import { OnsetPosterior } from "../../src/handoff/onset-posterior.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const gaussian = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** A session's log-likelihood per level of a rate known to within `sd` (log scale) around `rate`. */
const peakedAt = (rate: number, sd: number) => DECLINE_LEVELS.map((level) => -0.5 * (Math.log(level / rate) / sd) ** 2);

/** The firing-regime sessions of the two models, each handed off on the detector's own firings; the learned rate over the true one. */
function learnedOnFirings(triggers: { onsetEvidence: number; onsetReached: number }, seed = 27): Record<string, number> {
  const random = mulberry32(seed);
  const models = { shallow: { rate: 0.0057, noise: 0.067 }, steep: { rate: 0.018, noise: 0.056 } };
  const statistics = new Map<string, ProfileStatistics>(Object.keys(models).map((model) => [model, emptyStatistics()]));
  const profile = (model: string) =>
    pooledProfile({
      agentType: "engineer",
      model,
      windowTokens: 200_000,
      rows: [...statistics].map(([name, rows]) => ({ agentType: "engineer", model: name, statistics: rows })),
    });
  const learn = (model: string, summary: Parameters<typeof withInstance>[1]) =>
    statistics.set(model, withInstance(statistics.get(model) ?? emptyStatistics(), summary));
  for (let session = 0; session < 60; session++) {
    const model = session % 2 === 0 ? "shallow" : "steep";
    const { rate, noise } = models[model];
    const onset = 50_000 * Math.exp(0.1 * gaussian(random));
    let detector = new DegradationDetector(profile(model), { triggers });
    let context = 8_000;
    for (let turn = 0; turn < 60; turn++) {
      if (detector.check(context).fire) {
        learn(model, detector.handedOffSummary());
        const carried = detector.onsetMemory();
        detector = new DegradationDetector(profile(model), { triggers, handedOff: true, ...(carried ? { carried } : {}) });
        context = 12_000;
      }
      const quality = 0.9 - (rate * Math.max(0, context - onset)) / 1000 + noise * gaussian(random);
      detector.observe(context, quality);
      context += Math.round(3000 * Math.exp(0.5 * gaussian(random)));
    }
    learn(model, detector.sessionSummary());
  }
  expect(statistics.get("shallow")?.declineEvidence.sessions).toBeGreaterThan(20);
  return Object.fromEntries(Object.entries(models).map(([model, { rate }]) => [model, profile(model).declineRatePerKiloToken / rate]));
}

describe("the decline rate learned from the sessions' likelihoods", () => {
  it("is the parent's rate without sessions, and the sessions' once their likelihoods outweigh it", () => {
    expect(pooledDeclineRate(emptyDeclineEvidence(), 0.01)).toBeCloseTo(0.01, 3);
    let evidence = emptyDeclineEvidence();
    // Each session alone says little (a factor of 2 either way), twenty together place the rate.
    for (let session = 0; session < 20; session++) evidence = withSessionLikelihoods(evidence, peakedAt(0.005, Math.LN2));
    expect(evidence.sessions).toBe(20);
    expect(pooledDeclineRate(evidence, 0.01) / 0.005).toBeGreaterThan(0.9);
    expect(pooledDeclineRate(evidence, 0.01) / 0.005).toBeLessThan(1.1);
  });

  it("takes a session's noise from its best hinge, where the steps between turns count a steep decline as noise", () => {
    // Observed every 3k from 10k, onset at 50k, 1.8 % per 1,000 tokens in noise 0.056: a noise sd lost per turn past it.
    const random = mulberry32(11);
    const posterior = new OnsetPosterior({
      onsetTokens: 50_000,
      onsetSdTokens: 5_000,
      neverShare: 0.1,
      peakQuality: 0.9,
      declineRatePerKiloToken: 0.018,
      noiseSd: 0.01,
      windowTokens: 200_000,
    });
    const steps: number[] = [];
    let previous: number | undefined;
    for (let x = 10; x <= 110; x += 3) {
      const y = 0.9 - 0.018 * Math.max(0, x - 50) + 0.056 * gaussian(random);
      posterior.add(x, y);
      if (previous !== undefined) steps.push(Math.abs(y - previous));
      previous = y;
    }
    const sums = posterior.sums();
    const reached = Math.round((110 / 200) * 400);
    const residual = hingeResidualSd(sums, reached, DECLINE_LEVELS) as number;
    const sorted = steps.slice(-40).sort((a, b) => a - b);
    const stepEstimate = (1.4826 * (sorted[Math.floor(sorted.length / 2)] as number)) / Math.SQRT2;
    expect(stepEstimate / 0.056).toBeGreaterThan(1.15);
    expect(residual / 0.056).toBeGreaterThan(0.85);
    expect(residual / 0.056).toBeLessThan(1.1);
  });

  it("leaves out a list of another ladder's length or with a non-finite entry", () => {
    const evidence = emptyDeclineEvidence();
    expect(withSessionLikelihoods(evidence, [0, 1, 2])).toBe(evidence);
    expect(
      withSessionLikelihoods(
        evidence,
        DECLINE_LEVELS.map(() => Number.NaN),
      ),
    ).toBe(evidence);
  });

  for (const [first, carried] of [
    [0.957, 0.957],
    [0.93103, 0.94545],
    [0.89116, 0.93103],
  ] as const) {
    it(`learns a shallow model's rate beside a steep one of the same agent type, every session handed off on its own firings at ${first} / ${carried}`, () => {
      // The shallow model: 0.57 % of the peak per 1,000 tokens in noise 0.067 (the simulator's hardest); its sibling
      // declines three times as steeply. Each session is handed off a few turns past its onset, every time, and says
      // little of the rate alone: the mean of the sessions' estimates, each centred on the profile's own rate and shrunk
      // toward the type's (the steep sibling's), stayed 1.3-1.6 times the shallow rate in the bench (docs/DESIGN-NOTES.md).
      // At the lower levels each crossing shows fewer turns of decline, and a likelihood taken at the instance's step noise
      // (which counts the decline's steps) learned the steep model 0.78 times its rate ("What pulls the decline rate…").
      for (const [model, learned] of Object.entries(learnedOnFirings({ onsetEvidence: first, onsetReached: carried }))) {
        expect(learned, model).toBeGreaterThan(0.8);
        expect(learned, model).toBeLessThan(1.2);
      }
    }, 120_000);
  }

  it("learns both models' rates within 0.8-1.2 at the product's levels on six seeds of the firing regime, not one", () => {
    // The levels' rule of m-onset20 takes the test's margin on seeds 27-32: at 0.89116 / 0.96619 seeds 30 and 31 learned
    // the shallow model at 1.201 and 1.210 times its rate while seed 27 alone passed (docs/DESIGN-NOTES.md, "The carried
    // instances' early firings…").
    for (let seed = 27; seed <= 32; seed++) {
      for (const [model, learned] of Object.entries(learnedOnFirings(DEFAULT_TRIGGERS, seed))) {
        expect(learned, `seed ${seed}, ${model}`).toBeGreaterThan(0.8);
        expect(learned, `seed ${seed}, ${model}`).toBeLessThan(1.2);
      }
    }
  }, 240_000);

  it("learns a rate from sessions seen a few turns past their onset neither shallow nor steep, wherever the profile's rate starts", () => {
    // Sixty sessions of one model, each observed every 3k from 10k to 20k past its onset (about seven turns of decline), the
    // onset prior the one the sessions are drawn from. With the onset flat over every size a session reached, a shallow rate
    // fits a band of onsets and a steep one few: the summed likelihoods put the shallow model at 0.46-0.84 of its rate
    // (0.56 with the profile's rate right). At each rate's best onset it came out 1.26-1.54 times it. Under the onset prior,
    // 0.96-1.11 (docs/DESIGN-NOTES.md, "The decline rate's likelihood under the instance's onset prior").
    const models = [
      { rate: 0.0063 * 0.9, noise: 0.067 },
      { rate: 0.02 * 0.9, noise: 0.05 },
    ];
    for (const { rate, noise } of models) {
      for (const start of [0.5, 1, 2]) {
        const random = mulberry32(5);
        const prior = {
          onsetTokens: 55_000,
          onsetSdTokens: 6_000,
          neverShare: 0.2,
          peakQuality: 0.9,
          declineRatePerKiloToken: start * rate,
          noiseSd: noise,
          windowTokens: 200_000,
        };
        let evidence = emptyDeclineEvidence();
        for (let session = 0; session < 60; session++) {
          const onset = 55 * Math.exp(0.1 * gaussian(random));
          const posterior = new OnsetPosterior(prior);
          for (let x = 10; x <= onset + 20; x += 3) posterior.add(x, 0.9 - rate * Math.max(0, x - onset) + noise * gaussian(random));
          // As a session's last instance: its likelihoods count where it places an onset.
          if (posterior.evidenceOnset(0.5).located) evidence = withSessionLikelihoods(evidence, posterior.declineLikelihoods() ?? []);
        }
        expect(evidence.sessions, `${rate} from ${start}x`).toBeGreaterThan(30);
        const learned = pooledDeclineRate(evidence, start * rate) / rate;
        expect(learned, `${rate} from ${start}x`).toBeGreaterThan(0.88);
        expect(learned, `${rate} from ${start}x`).toBeLessThan(1.15);
      }
    }
  }, 60_000);
});
