import { normalSample } from "../stats/random-draws.js";
import type { ChildOnsets, OnsetEstimate } from "./censored-onset.js";
import { CENSORED_BUCKETS, censoredBoundOf, censoredBucketOf, estimateOnset, onsetPriorOf } from "./censored-onset.js";
import {
  addDeclineEvidence,
  type DeclineEvidence,
  emptyDeclineEvidence,
  pooledDeclineRate,
  withSessionLikelihoods,
} from "./decline-evidence.js";

/**
 * What earlier instances of an (agent type, model) learned about where its
 * quality degrades, kept as additive sufficient statistics (plain JSON, so
 * the integration layer stores them as they are) and pooled hierarchically:
 * (type, model) ← type ← all agents ← the built-in default, each parameter
 * shrunk toward its parent by its count, the onset by how far its siblings
 * lie against its own sessions' error (docs/DESIGN-NOTES.md, "What is
 * learned").
 */

export interface Moments {
  count: number;
  sum: number;
  sumSquares: number;
}

export interface PreparedArmStatistics {
  fraction: number;
  count: number;
  rewardSum: number;
  rewardSumSquares: number;
}

export interface ProfileStatistics {
  instances: number;
  /**
   * Sessions ended: instances that did not hand off. The session's onset goes
   * in once, with its last instance, so this is what the "never degrades"
   * share divides by (a row written before it was kept holds 0).
   */
  sessions: number;
  /** Onset (tokens) of the instances with a significant decline. */
  onset: Moments;
  /**
   * Σ of those onsets' own squared estimation errors (tokens², each the
   * summary's `onsetErrorSdTokens` squared): the part of `onset.sumSquares`
   * that is the estimates' error, not the spread of onsets between sessions.
   */
  onsetErrorSquares: number;
  /** Censored bounds (maxTokens of instances that never declined): counts per log-spaced bucket, see censored-onset.ts. */
  censored: number[];
  /** The plateau level. */
  peak: Moments;
  /** Quality lost per 1,000 tokens past the onset: the sessions' estimates, for a row without `declineEvidence`. */
  decline: Moments;
  /** The sessions' log-likelihoods of each rate, summed: what the rate is learned from (decline-evidence.ts). */
  declineEvidence: DeclineEvidence;
  plateauNoise: Moments;
  growthPerTurn: { count: number; sum: number };
  /** One arm per PREPARED_FRACTIONS entry, in that order; reward = mean quality of the first 3 turns. */
  preparedArms: PreparedArmStatistics[];
}

export interface InstanceSummary {
  observations: number;
  maxTokens: number;
  onsetTokens?: number;
  /** How far the true onset may lie from `onsetTokens` (its estimate's root mean squared error); none: taken as exact. */
  onsetErrorSdTokens?: number;
  /** No onset and no censored bound: the instance was ended on a decline too short to locate. */
  onsetUnknown?: boolean;
  /** The instance handed off to another of its session's: it did not end the session. */
  handedOff?: boolean;
  peakQuality: number;
  declineRatePerKiloToken: number;
  /** With a located session onset: log p(the session's observations | rate) per `DECLINE_LEVELS` entry. */
  declineLogLikelihoods?: number[];
  plateauNoise: number;
  growthPerTurn?: { count: number; sum: number };
  /** The arm this instance's prepared context used (it started from a handoff). */
  preparedFraction?: number;
  /** Mean quality of its first 3 observations (with preparedFraction). */
  earlyQuality?: number;
}

export interface AgentHandoffProfile {
  agentType: string;
  model: string;
  windowTokens: number;
  onsetTokens: number;
  /** How much onsets vary between sessions. */
  onsetSdTokens: number;
  /** Share of sessions that do not degrade within the window. */
  neverDegradesShare: number;
  peakQuality: number;
  declineRatePerKiloToken: number;
  degradedFraction: number;
  plateauNoise: number;
  expectedGrowthPerTurn: number;
  preparedFraction: number;
  optimalPreparedSize: number;
  evidence: { typeModel: number; type: number; all: number };
}

/** Prepared-context sizes tried, as fractions of the learned onset. */
export const PREPARED_FRACTIONS = [0.15, 0.25, 0.4] as const;

/** The root of the pooling: what an agent knows before any session (docs/DESIGN-NOTES.md). */
const BUILT_IN_DEFAULT = {
  onsetWindowShare: 0.6,
  /** Onsets vary a lot between tasks; a wide prior lets the first sessions move it. */
  onsetRelativeSd: 0.25,
  peakQuality: 0.95,
  declineRatePerKiloToken: 0.01,
  plateauNoise: 0.04,
  growthPerTurn: 3000,
  /** Early-turn quality an arm is assumed to reach before it has results. */
  armReward: 0.85,
  armRewardSd: 0.1,
  /** Share of instances taken not to degrade within the window before any has been seen. */
  neverShare: 0.2,
} as const;

const DEGRADED_NOISE_MULTIPLE = 2.5;
const MIN_PREPARED_TOKENS = 2000;
const MAX_PREPARED_WINDOW_SHARE = 0.3;
/** Thompson sampling explores while an arm has fewer results than this. */
const EXPLORE_BELOW = 3;

const emptyMoments = (): Moments => ({ count: 0, sum: 0, sumSquares: 0 });

export function emptyStatistics(): ProfileStatistics {
  return {
    instances: 0,
    sessions: 0,
    onset: emptyMoments(),
    onsetErrorSquares: 0,
    censored: new Array<number>(CENSORED_BUCKETS).fill(0),
    peak: emptyMoments(),
    decline: emptyMoments(),
    declineEvidence: emptyDeclineEvidence(),
    plateauNoise: emptyMoments(),
    growthPerTurn: { count: 0, sum: 0 },
    preparedArms: PREPARED_FRACTIONS.map((fraction) => ({ fraction, count: 0, rewardSum: 0, rewardSumSquares: 0 })),
  };
}

const addMoments = (a: Moments, b: Moments): Moments => ({
  count: a.count + b.count,
  sum: a.sum + b.sum,
  sumSquares: a.sumSquares + b.sumSquares,
});
const withValue = (m: Moments, value: number): Moments => ({
  count: m.count + 1,
  sum: m.sum + value,
  sumSquares: m.sumSquares + value * value,
});

export function addStatistics(a: ProfileStatistics, b: ProfileStatistics): ProfileStatistics {
  return {
    instances: a.instances + b.instances,
    sessions: a.sessions + b.sessions,
    onset: addMoments(a.onset, b.onset),
    onsetErrorSquares: a.onsetErrorSquares + b.onsetErrorSquares,
    censored: a.censored.map((count, bucket) => count + (b.censored[bucket] ?? 0)),
    peak: addMoments(a.peak, b.peak),
    decline: addMoments(a.decline, b.decline),
    declineEvidence: addDeclineEvidence(a.declineEvidence, b.declineEvidence),
    plateauNoise: addMoments(a.plateauNoise, b.plateauNoise),
    growthPerTurn: { count: a.growthPerTurn.count + b.growthPerTurn.count, sum: a.growthPerTurn.sum + b.growthPerTurn.sum },
    preparedArms: a.preparedArms.map((arm, index) => {
      const other = b.preparedArms[index];
      return other
        ? {
            fraction: arm.fraction,
            count: arm.count + other.count,
            rewardSum: arm.rewardSum + other.rewardSum,
            rewardSumSquares: arm.rewardSumSquares + other.rewardSumSquares,
          }
        : { ...arm };
    }),
  };
}

/** The statistics with one finished instance added; an instance without observations adds nothing. */
export function withInstance(statistics: ProfileStatistics, summary: InstanceSummary): ProfileStatistics {
  if (summary.observations === 0) return statistics;
  const next = addStatistics(statistics, emptyStatistics());
  next.instances++;
  if (!summary.handedOff) next.sessions++;
  if (summary.onsetTokens !== undefined) {
    next.onset = withValue(next.onset, summary.onsetTokens);
    next.onsetErrorSquares += (summary.onsetErrorSdTokens ?? 0) ** 2;
    next.decline = withValue(next.decline, summary.declineRatePerKiloToken);
    if (summary.declineLogLikelihoods) next.declineEvidence = withSessionLikelihoods(next.declineEvidence, summary.declineLogLikelihoods);
  } else if (!summary.onsetUnknown) {
    const bucket = censoredBucketOf(summary.maxTokens);
    next.censored[bucket] = (next.censored[bucket] ?? 0) + 1;
  }
  next.peak = withValue(next.peak, summary.peakQuality);
  next.plateauNoise = withValue(next.plateauNoise, summary.plateauNoise);
  if (summary.growthPerTurn) {
    next.growthPerTurn = {
      count: next.growthPerTurn.count + summary.growthPerTurn.count,
      sum: next.growthPerTurn.sum + summary.growthPerTurn.sum,
    };
  }
  const preparedFraction = summary.preparedFraction;
  if (preparedFraction !== undefined && summary.earlyQuality !== undefined) {
    const arm = next.preparedArms.find((candidate) => Math.abs(candidate.fraction - preparedFraction) < 1e-9);
    if (arm) {
      arm.count++;
      arm.rewardSum += summary.earlyQuality;
      arm.rewardSumSquares += summary.earlyQuality * summary.earlyQuality;
    }
  }
  return next;
}

/** One level's parameters, before the derived ones (degraded fraction, prepared size). */
interface Level {
  onset: OnsetEstimate;
  /** Share of sessions that went well past the onset without declining. */
  never: number;
  peak: number;
  decline: number;
  plateauNoise: number;
  growth: number;
  arms: Array<{ mean: number; sd: number }>;
}

function defaultLevel(windowTokens: number): Level {
  const onset = BUILT_IN_DEFAULT.onsetWindowShare * windowTokens;
  return {
    onset: { mean: onset, sd: BUILT_IN_DEFAULT.onsetRelativeSd * onset },
    never: BUILT_IN_DEFAULT.neverShare,
    peak: BUILT_IN_DEFAULT.peakQuality,
    decline: BUILT_IN_DEFAULT.declineRatePerKiloToken,
    plateauNoise: BUILT_IN_DEFAULT.plateauNoise,
    growth: BUILT_IN_DEFAULT.growthPerTurn,
    arms: PREPARED_FRACTIONS.map(() => ({ mean: BUILT_IN_DEFAULT.armReward, sd: BUILT_IN_DEFAULT.armRewardSd })),
  };
}

/** (n θ + k θ_parent) / (n + k), with n θ the level's own sum. */
const shrink = (count: number, sum: number, parent: number, k: number) => (sum + k * parent) / (count + k);

/**
 * A level pooled with its parent. `children`: the parent's children's located onsets (this level's among them),
 * which say how far a level's onset lies from the parent's; none for the built-in default's child, whose spread
 * stands for both that distance and a level's sessions' spread.
 */
function pooledLevel(statistics: ProfileStatistics, parent: Level, k: number, children?: ReadonlyArray<ChildOnsets>): Level {
  const onsetPrior = children ? onsetPriorOf(parent.onset, children) : { ...parent.onset, meanSd: parent.onset.sd };
  const onset = estimateOnset(
    { ...statistics.onset, errorSquares: statistics.onsetErrorSquares, censored: statistics.censored },
    onsetPrior,
    k,
  );
  return {
    onset,
    never: shrink(sessionsOf(statistics), censoredBeyond(statistics, onset.mean + NEVER_BEYOND_SDS * onset.sd), parent.never, k),
    peak: shrink(statistics.peak.count, statistics.peak.sum, parent.peak, k),
    decline:
      statistics.declineEvidence.sessions > 0
        ? pooledDeclineRate(statistics.declineEvidence, parent.decline)
        : shrink(statistics.decline.count, statistics.decline.sum, parent.decline, k),
    plateauNoise: shrink(statistics.plateauNoise.count, statistics.plateauNoise.sum, parent.plateauNoise, k),
    growth: shrink(statistics.growthPerTurn.count, statistics.growthPerTurn.sum, parent.growth, k),
    arms: parent.arms.map((parentArm, index) => {
      const arm = statistics.preparedArms[index] ?? { count: 0, rewardSum: 0, rewardSumSquares: 0 };
      const mean = shrink(arm.count, arm.rewardSum, parentArm.mean, k);
      // Spread of one reward, shrunk the same way; the posterior sd of the arm's mean divides by √(n + k).
      const meanSquare = shrink(arm.count, arm.rewardSumSquares, parentArm.mean ** 2 + parentArm.sd ** 2, k);
      return { mean, sd: Math.sqrt(Math.max(meanSquare - mean * mean, 1e-6)) };
    }),
  };
}

/** An instance censored this far past the onset (in sds) counts as one that never degrades. */
const NEVER_BEYOND_SDS = 2;

/**
 * The sessions the statistics hold. Each session reports its onset once, with
 * the instance that ends it (located, censored or unknown), and an instance
 * that hands off reports none, so a censored bound is a session's and the
 * "never degrades" share is over sessions, not over instances (5–12 a
 * session in the simulator, which held the share at a tenth of the truth).
 * A row written before sessions were counted holds none: the sessions that
 * placed an onset or a censored bound are the fewest it can have held.
 */
function sessionsOf(statistics: ProfileStatistics): number {
  const reported = statistics.onset.count + statistics.censored.reduce((total, count) => total + count, 0);
  return Math.max(statistics.sessions, reported);
}

/** Instances censored (they never declined) at a size of at least `tokens`. */
function censoredBeyond(statistics: ProfileStatistics, tokens: number): number {
  let count = 0;
  statistics.censored.forEach((instances, bucket) => {
    if (censoredBoundOf(bucket) >= tokens) count += instances;
  });
  return count;
}

/** One stored statistics row: an (agent type, model)'s, in one project or the user's. */
type ProfileRow = { agentType: string; model: string; statistics: ProfileStatistics };

export function pooledProfile(input: {
  agentType: string;
  model: string;
  windowTokens: number;
  rows: ReadonlyArray<ProfileRow>;
  pseudoCount?: number;
  random?: () => number;
  pooling?: boolean;
}): AgentHandoffProfile {
  const k = input.pseudoCount ?? 3;
  const ofType = input.rows.filter((row) => row.agentType === input.agentType);
  const all = summed(input.rows);
  const type = summed(ofType);
  const typeModel = summed(ofType.filter((row) => row.model === input.model));
  const root = defaultLevel(input.windowTokens);
  const level =
    input.pooling === false
      ? pooledLevel(typeModel, root, k)
      : pooledLevel(
          typeModel,
          pooledLevel(
            type,
            pooledLevel(all, root, k),
            k,
            childOnsets(input.rows, (row) => row.agentType),
          ),
          k,
          childOnsets(ofType, (row) => row.model),
        );

  const onsetTokens = level.onset.mean;
  const armIndex = chooseArm(level.arms, typeModel.preparedArms, k, input.random);
  const preparedFraction = PREPARED_FRACTIONS[armIndex] as number;
  return {
    agentType: input.agentType,
    model: input.model,
    windowTokens: input.windowTokens,
    onsetTokens,
    onsetSdTokens: level.onset.sd,
    neverDegradesShare: level.never,
    peakQuality: level.peak,
    declineRatePerKiloToken: level.decline,
    degradedFraction: clamp(1 - (DEGRADED_NOISE_MULTIPLE * level.plateauNoise) / level.peak, 0.6, 0.95),
    plateauNoise: level.plateauNoise,
    expectedGrowthPerTurn: level.growth,
    preparedFraction,
    optimalPreparedSize: clamp(preparedFraction * onsetTokens, MIN_PREPARED_TOKENS, MAX_PREPARED_WINDOW_SHARE * input.windowTokens),
    evidence: { typeModel: typeModel.instances, type: type.instances, all: all.instances },
  };
}

/** The located onsets of a level's children, the rows summed per child (one agent type, or one model of a type). */
function childOnsets(rows: ReadonlyArray<ProfileRow>, childOf: (row: ProfileRow) => string): ChildOnsets[] {
  return [...new Set(rows.map(childOf))].map((child) => {
    const statistics = summed(rows.filter((row) => childOf(row) === child));
    return { ...statistics.onset, errorSquares: statistics.onsetErrorSquares };
  });
}

const summed = (rows: ReadonlyArray<ProfileRow>) => rows.reduce((total, row) => addStatistics(total, row.statistics), emptyStatistics());

/**
 * The arm with the best posterior mean; while any arm of this (type, model)
 * has fewer than 3 results, a Thompson draw from each arm's posterior
 * instead, so every size gets tried before the profile settles.
 */
function chooseArm(arms: Level["arms"], own: ReadonlyArray<PreparedArmStatistics>, k: number, random: (() => number) | undefined): number {
  const exploring = random !== undefined && own.some((arm) => arm.count < EXPLORE_BELOW);
  const score = arms.map((arm, index) => {
    if (!exploring) return arm.mean;
    const n = (own[index]?.count ?? 0) + k;
    return arm.mean + (arm.sd / Math.sqrt(n)) * normalSample(random);
  });
  // Ties (no data yet, no random) go to the middle size: neither the most nor the least context.
  const middle = Math.floor((score.length - 1) / 2);
  let best = middle;
  for (let index = 0; index < score.length; index++) if ((score[index] as number) > (score[best] as number)) best = index;
  return best;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** m(x): the plateau up to the onset, then the learned decline (floored at 0); x in thousands of tokens. */
export function priorMeanOf(profile: AgentHandoffProfile): (kiloTokens: number) => number {
  const onsetKilo = profile.onsetTokens / 1000;
  return (kiloTokens) =>
    kiloTokens <= onsetKilo
      ? profile.peakQuality
      : Math.max(0, profile.peakQuality - profile.declineRatePerKiloToken * (kiloTokens - onsetKilo));
}
