/**
 * Failed turns in the onset posterior's evidence (docs/DESIGN-NOTES.md,
 * "The Gaussian process"). A failed turn (a tool that broke for reasons of
 * its own, a wrong guess) scores anywhere between nothing and what the
 * context allows: it lies below the prediction, uniformly over [0,
 * prediction]. The share of such turns is the session's own, from a prior
 * of 5 % worth 20 turns (fixed before any benchmark run): each turn adds
 * its probability of being one.
 */
const OUTLIER_PRIOR_SHARE = 0.05;
const OUTLIER_PRIOR_TURNS = 20;

/** Turns taken for failed ones this many in a row are a change (a cliff), not outliers, and count whole. */
export const SUSTAINED_FAILED_TURNS = 3;

/** The posterior when a turn arrives: its prediction and that prediction's variance, and the session's turns so far. */
export interface TurnPrediction {
  expected: number;
  /** The noise's and what the instance's level is still unsure of. */
  variance: number;
  /** Σ of the earlier turns' probabilities of having failed, and how many turns there were. */
  outliers: number;
  turns: number;
}

/**
 * P(a failed turn | observed): a normal around the prediction with the
 * session's share of good turns, against the failed turns' uniform density
 * below it with theirs. A turn at or above the prediction did not fail.
 */
export function failedTurnProbability(observed: number, prediction: TurnPrediction): number {
  const { expected, variance } = prediction;
  if (!(expected > 0) || observed >= expected) return 0;
  const share = (OUTLIER_PRIOR_SHARE * OUTLIER_PRIOR_TURNS + prediction.outliers) / (OUTLIER_PRIOR_TURNS + prediction.turns);
  const good = ((1 - share) * Math.exp((-0.5 * (observed - expected) ** 2) / variance)) / Math.sqrt(2 * Math.PI * variance);
  const failed = share / expected;
  return failed / (failed + good);
}
