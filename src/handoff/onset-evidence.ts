/** The onset posterior's plain data: its prior, the evidence it carries over a handoff, and what it locates (`onset-posterior.ts`). */

export interface OnsetPrior {
  /** The learned onset (tokens) and its spread across sessions. */
  onsetTokens: number;
  onsetSdTokens: number;
  /** Share of instances that do not degrade within the window at all. */
  neverShare: number;
  peakQuality: number;
  /** Quality lost per 1,000 tokens past the onset (the learned one; the states try rates from half to twice it). */
  declineRatePerKiloToken: number;
  /** Per-turn noise of the quality signal. */
  noiseSd: number;
  windowTokens: number;
}

/**
 * What the observations said about the onset: the likelihood's sufficient
 * sums, plain data. `past`, `pastSquares` and `pastY` hold, per onset τ of
 * the grid, Σ (x − τ)⁺, Σ ((x − τ)⁺)² and Σ y (x − τ)⁺ (x in kilotokens).
 */
export interface OnsetEvidence {
  count: number;
  sumY: number;
  sumYSquares: number;
  past: number[];
  pastSquares: number[];
  pastY: number[];
  /** The newest steps between successive observations within an instance, for the noise estimate. */
  noiseSteps: number[];
  /**
   * Σ of the weights (each turn's probability of not having failed, which
   * weighs every sum above) and of their complements; absent in rows from
   * before the weights: every turn counted whole.
   */
  weight?: number;
  outliers?: number;
}

/** Where a session's observations alone put its onset (`OnsetPosterior.evidenceOnset`). */
export interface LocatedOnset {
  located: true;
  onsetTokens: number;
  declineRatePerKiloToken: number;
  /** The estimate's root mean squared error under the flat-prior posterior it is the median of. */
  errorSdTokens: number;
}

/** A posterior as it carries over a handoff: the prior it started from and the evidence since. */
export interface OnsetMemory {
  prior: OnsetPrior;
  evidence: OnsetEvidence;
}
