import type { HingeSums } from "./hinge-residual.js";

/**
 * The onset posterior's likelihood from its weighted sufficient sums, shared by the posterior (`onset-posterior.ts`) and the evidence
 * it gives the profile (`onset-profile-evidence.ts`). Model, for a state (onset τ on the grid, decline rate d): quality = c − d·(x − τ)⁺
 * + noise, with the instance's level c ~ N(levelMean, levelVariance) integrated out in closed form.
 */
export interface OnsetSums extends HingeSums {
  /** Observations counted (whole), beside `weight`, Σ of their inlier weights. */
  count: number;
  levelMean: number;
  levelVariance: number;
}

/** A state as the likelihood needs it: its grid index (-1: no onset in the window) and its decline rate. */
export interface OnsetCell {
  grid: number;
  decline: number;
}

const sumOf = (sums: ArrayLike<number>, cell: OnsetCell): number => (cell.grid < 0 ? 0 : (sums[cell.grid] as number));

/** log p(observations | state) at noise variance `s2`, the level c integrated out; 0 before any observation. */
export function onsetLogLikelihood(sums: OnsetSums, cell: OnsetCell, s2: number): number {
  const n = sums.weight;
  if (sums.count === 0) return 0;
  const b = sums.levelVariance;
  const m0 = sums.levelMean;
  // The marginal of z − m0 ~ N(0, σ²W⁻¹ + b 11ᵀ), W the observations' weights: Sherman–Morrison and the determinant
  // lemma, with n the weights' sum and every sum weighted (log|σ²W⁻¹| is the same for every state).
  const d = cell.decline;
  const sumZ = sums.sumY + d * sumOf(sums.past, cell);
  const sumZSquares = sums.sumYSquares + 2 * d * sumOf(sums.pastY, cell) + d * d * sumOf(sums.pastSquares, cell);
  const sumR = sumZ - n * m0;
  const sumRSquares = sumZSquares - 2 * m0 * sumZ + n * m0 * m0;
  const quadratic = (sumRSquares - (b / (s2 + n * b)) * sumR * sumR) / s2;
  return -0.5 * quadratic - 0.5 * Math.log(1 + (n * b) / s2);
}

/** The posterior mean of the instance's level c given the state, at noise variance `s2`: its plateau. */
export function levelGiven(sums: OnsetSums, cell: OnsetCell, s2: number): number {
  if (sums.count === 0) return sums.levelMean;
  // z = y + d (x − τ)⁺ are the observations with the decline put back: all of them measure c.
  const sumZ = sums.sumY + cell.decline * sumOf(sums.past, cell);
  return (sums.levelMean / sums.levelVariance + sumZ / s2) / (1 / sums.levelVariance + sums.weight / s2);
}
