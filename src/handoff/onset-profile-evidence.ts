import { logSumExp, normalised } from "../stats/log-weights.js";
import { DECLINE_LEVELS } from "./decline-evidence.js";
import { hingeResidualSd } from "./hinge-residual.js";
import type { LocatedOnset } from "./onset-evidence.js";
import { type OnsetSums, onsetLogLikelihood } from "./onset-likelihood.js";

/**
 * What a session's onset posterior gives the profile when the session ends: where its observations alone put the onset
 * (`evidenceOnset`), and its likelihood of each decline rate (`declineLikelihoods`). The posterior that fires is
 * `onset-posterior.ts`; these read its sums and prior.
 */

/** A state of the posterior's grid, as these read it. */
export interface GridState {
  grid: number;
  /** kilotokens */
  onset: number;
  /** Index into the rates' prior. */
  rate: number;
  decline: number;
}

export interface PosteriorEvidence {
  sums: OnsetSums;
  /** The posterior's states with an onset in the window. */
  states: readonly GridState[];
  /** The rates' prior weights, by `GridState.rate`. */
  rateWeights: ArrayLike<number>;
  /** log of the prior's onset share per grid onset (rates summed), and last of "no onset in the window". */
  onsetLogPrior: Float64Array;
  /** The noise variance the posterior reads its turns at, and the profile's noise sd (a floor). */
  noiseVariance: number;
  priorNoiseSd: number;
}

const NO_ONSET = { grid: -1, decline: 0 };

/** How many onsets of the grid the observations reached: those with any observation past them (the grid ascends). */
export function reachedOnsets(sums: OnsetSums): number {
  let reached = 0;
  while (reached < sums.past.length && (sums.past[reached] as number) > 0) reached++;
  return reached;
}

/**
 * log p(observations | rate) per `DECLINE_LEVELS` entry, the onset integrated out under the instance's onset prior (with its "never"),
 * at the noise of the best-fitting hinge (`hingeResidualSd`: the step estimate counts a decline's steps): what the profile sums over
 * sessions (`decline-evidence.ts`); undefined before any onset was reached. Flat over the reached grid, a shallow rate was favoured by
 * about 1/rate (docs/DESIGN-NOTES.md, "The decline rate's likelihood under the instance's onset prior").
 */
export function declineLikelihoods(evidence: PosteriorEvidence): number[] | undefined {
  const { sums, onsetLogPrior } = evidence;
  const reached = reachedOnsets(sums);
  if (reached === 0) return undefined;
  const residual = hingeResidualSd(sums, reached, DECLINE_LEVELS);
  const noise = residual === undefined ? evidence.noiseVariance : Math.max(residual, evidence.priorNoiseSd) ** 2;
  // An onset beyond the largest size observed, or none, has the likelihood of a plateau whatever the rate.
  const plateau = onsetLogLikelihood(sums, NO_ONSET, noise);
  const logs = onsetLogPrior.map((logPrior) => logPrior + plateau);
  return DECLINE_LEVELS.map((decline) => {
    for (let grid = 0; grid < reached; grid++)
      logs[grid] = (onsetLogPrior[grid] as number) + onsetLogLikelihood(sums, { grid, decline }, noise);
    return logSumExp(logs);
  });
}

/**
 * Where the observations alone (this instance's and those carried from earlier ones) put the onset, for the profile: a profile fed
 * estimates shrunk toward itself would hardly move, so the onset's prior is flat (even odds between an onset below the largest size
 * observed and none there, every onset below it equally likely); the rates keep their prior around the learned rate. `located`: that
 * probability reaches `level`; the estimate is then the median of those onsets, with their rates' geometric mean, and `errorSdTokens`
 * its root mean squared error under that posterior, which the profile takes back out of the estimates' spread (`estimateOnset`).
 */
export function evidenceOnset(evidence: PosteriorEvidence, level: number): LocatedOnset | { located: false } {
  const { sums, noiseVariance } = evidence;
  const reached = reachedOnsets(sums);
  if (reached === 0) return { located: false };
  const inside = evidence.states.filter((state) => state.grid >= 0 && state.grid < reached);
  // Every state beyond the largest size has the likelihood of "never": nothing was observed past its onset.
  const beyond = onsetLogLikelihood(sums, NO_ONSET, noiseVariance);
  const perOnset = Math.log(0.5 / reached);
  const inLogs = inside.map(
    (state) => perOnset + Math.log(evidence.rateWeights[state.rate] as number) + onsetLogLikelihood(sums, state, noiseVariance),
  );
  const weights = normalised([...inLogs, Math.log(0.5) + beyond]);
  const locatedProbability = 1 - (weights[inside.length] as number);
  if (locatedProbability < level) return { located: false };
  let cumulative = 0;
  let logDecline = 0;
  let median: number | undefined;
  inside.forEach((state, index) => {
    const weight = (weights[index] as number) / locatedProbability;
    logDecline += weight * Math.log(state.decline);
    cumulative += weight;
    if (median === undefined && cumulative >= 0.5) median = state.onset;
  });
  const estimate = median ?? (inside.at(-1) as GridState).onset;
  let squaredError = 0;
  inside.forEach((state, index) => {
    squaredError += ((weights[index] as number) / locatedProbability) * (state.onset - estimate) ** 2;
  });
  return {
    located: true,
    onsetTokens: estimate * 1000,
    declineRatePerKiloToken: Math.exp(logDecline),
    errorSdTokens: Math.sqrt(squaredError) * 1000,
  };
}
