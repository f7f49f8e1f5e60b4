import { describe, expect, it } from "vitest";
import { DegradationDetector } from "../../src/handoff/degradation-detector.js";
import { emptyStatistics, pooledProfile, withInstance } from "../../src/handoff/handoff-profile.js";
import {
  effectiveSampleSize,
  learnSession,
  PARTICLES,
  type PairPosteriorState,
  pairMeans,
  priorPairPosterior,
  type SessionTurns,
  sessionLogLikelihood,
  sessionTurnsOf,
  unlearnSession,
} from "../../src/handoff/pair-posterior.js";
import { SessionJoint } from "../../src/handoff/session-joint.js";
import { normalSample, seededUniform } from "../../src/stats/random-draws.js";

const WINDOW = 200_000;
const TRUTH = { peak: 0.9, onset: 60_000, spread: 0.1, ratePerKilo: 0.015, noise: 0.05, never: 0.15 };

/**
 * A pair's sessions as the simulator makes them: a plateau, a linear decline past the session's own onset (log-normal
 * about the pair's mean), Gaussian noise and 4 % failed turns at 10-50 % of the curve. Each session is seen up to five
 * turns past its onset (where a detector hands off), or to 150k tokens if it never degrades.
 */
function simulatedSessions(count: number, seed: number): SessionTurns[] {
  const random = seededUniform(seed);
  return Array.from({ length: count }, (_, index) => {
    const degrades = random() >= TRUTH.never;
    const onset = degrades ? TRUTH.onset * Math.exp(TRUTH.spread * normalSample(random)) : Number.POSITIVE_INFINITY;
    const turns: Array<[number, number]> = [];
    for (let tokens = 8_000; tokens <= Math.min(onset + 15_000, 150_000); tokens += 3_000) {
      const curve = Math.max(0, TRUTH.peak - (TRUTH.ratePerKilo * Math.max(0, tokens - onset)) / 1000);
      const failed = random() < 0.04 ? 0.1 + 0.4 * random() : 1;
      turns.push([tokens, curve * failed + TRUTH.noise * normalSample(random)]);
    }
    return sessionTurnsOf(turns, index, WINDOW);
  });
}

const sessions = simulatedSessions(16, 2027);
let learned: PairPosteriorState | undefined;
/** The pair's posterior after the 16 sessions (computed once: a few seconds). */
function learnedPair(): PairPosteriorState {
  learned ??= sessions.reduce(learnSession, priorPairPosterior(WINDOW));
  return learned;
}

describe("the pair's posterior", () => {
  it("concentrates on the truth: the plateau unbiased where a plain mean of the plateau's turns is pulled low by failed turns", () => {
    const means = pairMeans(learnedPair());
    const plateauTurns = sessions.flatMap((session) => session.quality.filter((_, t) => (session.tokens[t] as number) < 0.8 * TRUTH.onset));
    const plainMean = plateauTurns.reduce((sum, quality) => sum + quality, 0) / plateauTurns.length;
    expect(TRUTH.peak - plainMean).toBeGreaterThan(0.015);
    expect(Math.abs(means.peakQuality - TRUTH.peak)).toBeLessThan(0.008);
    expect(Math.abs(means.onsetTokens / TRUTH.onset - 1)).toBeLessThan(0.1);
    expect(Math.abs(Math.log(means.declineRatePerKiloToken / TRUTH.ratePerKilo))).toBeLessThan(0.35);
    expect(Math.abs(means.noiseSd - TRUTH.noise)).toBeLessThan(0.01);
    // The prior's means, for scale: far from the truth before any session.
    expect(Math.abs(pairMeans(priorPairPosterior(WINDOW)).onsetTokens / TRUTH.onset - 1)).toBeGreaterThan(0.2);
  });

  it("resamples to equal weights inside the prior's box, keeps each particle's likelihood of its sessions, and is reproducible", () => {
    const prior = priorPairPosterior(WINDOW);
    const before = JSON.stringify(prior);
    const session = sessions[0] as SessionTurns;
    const after = learnSession(prior, session);
    expect(JSON.stringify(prior)).toBe(before);
    expect(after.particles).toHaveLength(PARTICLES);
    // One long session from the broad prior drops the effective sample size under half: the set was resampled and moved.
    expect(effectiveSampleSize(after)).toBeCloseTo(PARTICLES, 6);
    expect(after.particles.some((particle, j) => particle !== prior.particles[j])).toBe(true);
    for (const particle of after.particles) {
      expect(Math.exp(particle[0] as number) / WINDOW).toBeGreaterThanOrEqual(0.085 - 1e-12);
      expect(Math.exp(particle[0] as number) / WINDOW).toBeLessThanOrEqual(0.46 + 1e-12);
      expect(particle[3]).toBeGreaterThanOrEqual(0.85);
      expect(particle[3]).toBeLessThanOrEqual(0.95);
      expect(particle[6]).toBeGreaterThanOrEqual(0);
      expect(particle[6]).toBeLessThanOrEqual(0.5);
    }
    after.particles.forEach((particle, j) => {
      expect(after.logLikelihoods[j]).toBeCloseTo(sessionLogLikelihood(particle, session), 6);
    });
    expect(learnSession(prior, session)).toEqual(after);
    expect(after.sessions).toBe(1);
    expect(after.retained).toEqual([session]);
  });

  it("divides a session back out: without a move in between, the weights are the ones before it", () => {
    const prior = priorPairPosterior(WINDOW);
    const short = sessionTurnsOf([[9_000, 0.9]], 0, WINDOW);
    const after = learnSession(prior, short);
    expect(effectiveSampleSize(after)).toBeGreaterThan(PARTICLES / 2);
    const back = unlearnSession(after, short);
    for (const [j, logWeight] of back.logWeights.entries()) expect(logWeight).toBeCloseTo(prior.logWeights[j] as number, 9);
    expect(back.sessions).toBe(0);
    expect(back.retained).toEqual([]);
    expect(unlearnSession(back, short)).toBe(back);
  });

  it("round-trips through the profile: stored as JSON in the (type, model)'s row, read back by pooledProfile, never another pair's", () => {
    const base = { observations: 20, maxTokens: 70_000, peakQuality: 0.87, declineRatePerKiloToken: 0.01, plateauNoise: 0.05 };
    let statistics = emptyStatistics();
    for (const session of sessions.slice(0, 3)) statistics = withInstance(statistics, { ...base, sessionTurns: session });
    const stored = JSON.parse(JSON.stringify(statistics)) as typeof statistics;
    expect(stored.pair).toEqual(statistics.pair);
    expect(stored.pair?.sessions).toBe(3);
    const other = withInstance(emptyStatistics(), { ...base, sessionTurns: sessions[5] as SessionTurns });
    const rows = [
      { agentType: "engineer", model: "other", statistics: other },
      { agentType: "engineer", model: "claude-x", statistics: stored },
    ];
    const profile = pooledProfile({ agentType: "engineer", model: "claude-x", windowTokens: WINDOW, rows, pairLearner: true });
    expect(profile.pair).toEqual(stored.pair);
    const means = pairMeans(stored.pair as PairPosteriorState);
    expect(profile.peakQuality).toBeCloseTo(means.peakQuality, 12);
    expect(profile.onsetTokens).toBeCloseTo(means.onsetTokens, 6);
    // A pair with no row starts from the prior; without the learner (the default, PAIR_LEARNER) no profile has one.
    expect(pooledProfile({ agentType: "engineer", model: "new", windowTokens: WINDOW, rows, pairLearner: true }).pair?.sessions).toBe(0);
    expect(pooledProfile({ agentType: "engineer", model: "claude-x", windowTokens: WINDOW, rows }).pair).toBeUndefined();
  });
});

describe("a first instance on the pair's posterior", () => {
  /** Feeds a session's turns to a detector, checking before each; the size it fired at, if any. */
  function firstFiring(detector: DegradationDetector, turns: Array<[number, number]>): number | undefined {
    for (const [tokens, quality] of turns) {
      const check = detector.check(tokens);
      if (check.fire) {
        expect(check.condition).toBe("onset_reached");
        return tokens;
      }
      detector.observe(tokens, quality);
    }
    return undefined;
  }

  it("fires on the predictive P(onset <= size) at its level: past the onset within a few turns, not on a plateau", () => {
    const pair = learnedPair();
    const rows = [{ agentType: "engineer", model: "claude-x", statistics: { ...emptyStatistics(), pair } }];
    const profile = pooledProfile({ agentType: "engineer", model: "claude-x", windowTokens: WINDOW, rows, pairLearner: true });
    const triggers = { onsetEvidence: 0.915, onsetReached: 0.97 };
    const random = seededUniform(11);
    const onset = 64_000;
    const declining: Array<[number, number]> = [];
    const flat: Array<[number, number]> = [];
    for (let tokens = 8_000; tokens <= 150_000; tokens += 3_000) {
      const noise = TRUTH.noise * normalSample(random);
      declining.push([tokens, Math.max(0, 0.9 - (TRUTH.ratePerKilo * Math.max(0, tokens - onset)) / 1000) + noise]);
      flat.push([tokens, 0.9 + noise]);
    }
    const fired = firstFiring(new DegradationDetector(profile, { triggers }), declining);
    expect(fired).toBeGreaterThanOrEqual(onset);
    expect(fired).toBeLessThanOrEqual(onset + 6 * 3_000);
    expect(firstFiring(new DegradationDetector(profile, { triggers }), flat)).toBeUndefined();
    // The firing is the joint posterior's predictive crossing the first level, turn for turn.
    const joint = SessionJoint.start(pair);
    const crossed = declining.findIndex(([tokens, quality], t) => {
      const reached = t >= 3 && joint.probabilityDegradedBy(tokens) >= triggers.onsetEvidence;
      joint.add(tokens, quality);
      return reached;
    });
    expect(declining[crossed]?.[0]).toBe(fired);
  });

  it("hands the session's joint posterior to a carried instance, which fires at the carried level, and gives the pair the session's turns", () => {
    const pair = learnedPair();
    const rows = [{ agentType: "engineer", model: "claude-x", statistics: { ...emptyStatistics(), pair } }];
    const profile = pooledProfile({ agentType: "engineer", model: "claude-x", windowTokens: WINDOW, rows, pairLearner: true });
    const first = new DegradationDetector(profile, { triggers: { onsetEvidence: 0.915, onsetReached: 0.97 } });
    for (let tokens = 8_000; tokens <= 80_000; tokens += 3_000) first.observe(tokens, 0.9 - Math.max(0, tokens - 62_000) * 1.5e-5);
    const memory = first.onsetMemory();
    expect(memory?.session?.turns).toHaveLength(25);
    const carried = new DegradationDetector(profile, {
      triggers: { onsetReached: 0.97 },
      handedOff: true,
      ...(memory ? { carried: memory } : {}),
    });
    // Below the located onset it waits; at it, it fires at once (no burn-in: the session's turns are its evidence).
    expect(carried.check(40_000).fire).toBe(false);
    expect(carried.check(66_000)).toMatchObject({ fire: true, condition: "onset_reached" });
    // Rebuilt from the stored turns (a resumed session), the joint says the same.
    const stored = JSON.parse(JSON.stringify(memory)) as typeof memory;
    const rebuilt = new DegradationDetector(profile, {
      triggers: { onsetReached: 0.97 },
      handedOff: true,
      ...(stored ? { carried: stored } : {}),
    });
    expect(rebuilt.check(66_000).fire).toBe(true);
    carried.observe(20_000, 0.5);
    carried.observe(23_000, 0.6);
    carried.observe(26_000, 0.9);
    // The two turns after the handoff stay out; the session's turns go to the pair, sorted by size.
    const turns = carried.sessionSummary().sessionTurns;
    expect(turns?.tokens).toHaveLength(26);
    expect(turns?.tokens.slice(0, 8)).toEqual([8_000, 11_000, 14_000, 17_000, 20_000, 23_000, 26_000, 26_000]);
    expect(turns?.index).toBe(pair.sessions);
  });
});
