import { normalised } from "../stats/log-weights.js";

/**
 * What a profile learns of its decline rate: the sum over sessions of each
 * session's log-likelihood at a fixed ladder of rates, not the mean of the
 * sessions' estimates. A session handed off a few turns past its onset,
 * each time, says little about the rate, and its estimate (a posterior
 * over rates centred on the profile's own) stays near that centre; a mean
 * of such estimates moves the profile only part of the way to the truth,
 * and the next sessions' posteriors, centred on it, place their onsets
 * late (docs/DESIGN-NOTES.md, "What is learned"). The likelihoods do not
 * depend on the centre, nor on the firing that ended each stretch (it
 * looks at the observations alone), and their sum sharpens with every
 * session.
 */

/** The rates (quality per 1,000 tokens) at which sessions report their likelihood: 2^⅛ apart from 0.001 to 0.064. */
export const DECLINE_LEVELS: readonly number[] = Array.from({ length: 49 }, (_, step) => 0.001 * 2 ** (step / 8));
/** The parent's rate as the prior: log-normal, a factor of 2 wide (models' rates differ several times over). */
const PARENT_LOG_SD = Math.LN2;

/** Σ over the sessions that located an onset of log p(session's observations | rate), per `DECLINE_LEVELS` entry. */
export interface DeclineEvidence {
  sessions: number;
  logLikelihoods: number[];
}

export function emptyDeclineEvidence(): DeclineEvidence {
  return { sessions: 0, logLikelihoods: DECLINE_LEVELS.map(() => 0) };
}

/** a + b, or a − b with `sign` −1 (a profile row takes an instance's contribution back out). */
export function addDeclineEvidence(a: DeclineEvidence, b: DeclineEvidence, sign = 1): DeclineEvidence {
  return {
    sessions: a.sessions + sign * b.sessions,
    logLikelihoods: a.logLikelihoods.map((value, level) => value + sign * (b.logLikelihoods[level] ?? 0)),
  };
}

/** The evidence with one session's log-likelihoods added (a list of another length is from another ladder: left out). */
export function withSessionLikelihoods(evidence: DeclineEvidence, logLikelihoods: readonly number[]): DeclineEvidence {
  if (logLikelihoods.length !== DECLINE_LEVELS.length || !logLikelihoods.every(Number.isFinite)) return evidence;
  return addDeclineEvidence(evidence, { sessions: 1, logLikelihoods: [...logLikelihoods] });
}

/** The geometric mean of the rate's posterior: the sessions' summed likelihoods under the parent's rate as the prior. */
export function pooledDeclineRate(evidence: DeclineEvidence, parentRate: number): number {
  const centre = Math.log(parentRate);
  const logs = DECLINE_LEVELS.map(
    (rate, level) => (evidence.logLikelihoods[level] ?? 0) - 0.5 * ((Math.log(rate) - centre) / PARENT_LOG_SD) ** 2,
  );
  const weights = normalised(logs);
  let logRate = 0;
  weights.forEach((weight, level) => {
    logRate += weight * Math.log(DECLINE_LEVELS[level] as number);
  });
  return Math.exp(logRate);
}
