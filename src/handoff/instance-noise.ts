import { median } from "../stats/median.js";

/**
 * The noise an instance's onset posterior reads its turns at: the profile's plateau noise, unless the instance's own steps show it
 * noisier than that beyond their sampling error (docs/DESIGN-NOTES.md, "The instance's noise").
 *
 * The own estimate is the median step between successive observations (MAD of differences / √2, robust to a slow trend). Taken as
 * max(profile, own), a noisy estimate from a few dozen steps was kept whenever it erred high and dropped whenever it erred low: at a
 * session's first crossing (10-30 steps, 4 % failed turns) that read the noise 1.2-1.5× the truth, and a decline needed that much more
 * evidence per turn (docs/BENCHMARKS.md, "What holds the slow first crossings").
 */

/** The own estimate's standard error relative to the noise, times √(steps): 1.21-1.26 for Gaussian noise at 5-40 steps (simulated). */
const RELATIVE_SE_ROOT_STEPS = 1.25;
/** How many of those standard errors the own estimate must lie above the profile's noise to replace it (one-sided, about 2.3 %). */
const SIGNIFICANCE = 2;

/** The median of |y − previous y| over √2 / 1.4826: the noise sd of Gaussian steps. `steps` is not modified. */
export function medianStepSd(steps: readonly number[]): number {
  return (1.4826 * median(steps)) / Math.SQRT2;
}

/**
 * The larger of the profile's noise and the instance's median step (`medianStepSd`; the profile's with fewer than `minSteps` steps): how
 * far the instance's turns move from one to the next, a decline's steps included. What a failed turn is judged against
 * (`failedTurnProbability`): the turns of a decline the posterior's mean has not followed yet are not failed turns. Read as the noise of
 * the likelihood, the same figure held back the first crossing; `instanceNoiseSd` is that noise.
 */
export function stepNoiseSd(steps: readonly number[], profileSd: number, minSteps: number): number {
  return steps.length < minSteps ? profileSd : Math.max(profileSd, medianStepSd(steps));
}

/**
 * The instance's noise sd: its own (`medianStepSd`) where that lies above `profileSd` × (1 + 2 × 1.25 / √steps), else the profile's.
 * With fewer than `minSteps` steps, the profile's.
 */
export function instanceNoiseSd(steps: readonly number[], profileSd: number, minSteps: number): number {
  if (steps.length < minSteps) return profileSd;
  const own = medianStepSd(steps);
  const bound = profileSd * (1 + (SIGNIFICANCE * RELATIVE_SE_ROOT_STEPS) / Math.sqrt(steps.length));
  return own > bound ? own : profileSd;
}
