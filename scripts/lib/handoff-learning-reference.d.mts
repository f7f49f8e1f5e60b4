// Types of scripts/lib/handoff-learning-reference.mjs (plain JS, run by node without a build), for the tests that import it.

/** [log mean onset, drift, log spread, peak, log rate per 1,000 tokens, noise sd, never share] */
export type Particle = number[];
export interface Pair {
  particles: Particle[];
  logw: Float64Array;
  lik: Float64Array;
  data: SessionData[];
  moves: number;
  accepted: number;
  proposed: number;
}
export interface SessionData {
  xs: number[];
  ys: number[];
  progress: number;
}
export interface Cell {
  v: Particle;
  onsets: number[];
  lw: Float64Array;
  rate: number;
}

export const OUTLIER_RATE: number;
export function observationLogLikelihood(sd: number, expected: number, observed: number): number;
export function parameterBox(window: number): Array<[string, number, number]>;
export const GRID_POINTS: number;
export const GRID_Z: number[];
export const GRID_LOG_MASS: number[];
export function onsetsOf(v: Particle, progress: number): number[];
export function logSumExp(values: Iterable<number>): number;
export function sessionLogLikelihood(v: Particle, d: SessionData): number;
export function systematicIndices(weights: ArrayLike<number>, u0: number): number[];
export function normalise(logWeights: Float64Array): void;
export function effectiveSampleSize(logWeights: Float64Array): number;
export function createPosterior(options: {
  particles: number;
  random: () => number;
  gaussian: (random: () => number) => number;
  box: Array<[string, number, number]>;
}): { pairOf(key: string): Pair; learnFrom(pair: Pair, d: SessionData): void };
export function sessionCells(pair: Pair, progress: number): Cell[];
export function predictive(cells: Cell[], x: number): { p: number; mean: number };
export function observeCells(cells: Cell[], context: number, y: number): void;
export function posteriorSummary(
  pair: Pair,
  progress: number,
): { onset: number; sd: number; peak: number; rate: number; noise: number; never: number; ess: number };
