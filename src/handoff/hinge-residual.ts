/**
 * The noise a session's decline likelihood is taken at: the residual sd of the best-fitting hinge (a level, then a
 * decline at one of `rates` from one of the first `reached` onsets of the grid), from the posterior's weighted sums.
 * The instance's own estimate (the median step between successive turns) counts every step of a decline as noise:
 * 1.04-1.19 times the truth for a model losing a noise sd per turn, and a likelihood taken at too wide a noise leans
 * shallow, because the fit's differences between rates shrink while the onset's width (about 1/rate) does not
 * (docs/DESIGN-NOTES.md, "What pulls the decline rate in sessions ended by firings").
 */
export interface HingeSums {
  /** Σ weights, Σ w y, Σ w y² */
  weight: number;
  sumY: number;
  sumYSquares: number;
  /** Per onset of the grid: Σ w (x − τ)⁺, Σ w y (x − τ)⁺, Σ w ((x − τ)⁺)². */
  past: ArrayLike<number>;
  pastY: ArrayLike<number>;
  pastSquares: ArrayLike<number>;
}

/** √(least residual sum of squares / (n − 3)) over no onset and every (onset reached, rate); undefined with three weights or fewer. */
export function hingeResidualSd(sums: HingeSums, reached: number, rates: readonly number[]): number | undefined {
  const n = sums.weight;
  if (!(n > 3)) return undefined;
  let least = sums.sumYSquares - (sums.sumY * sums.sumY) / n;
  for (let grid = 0; grid < reached; grid++) {
    const past = sums.past[grid] as number;
    const pastY = sums.pastY[grid] as number;
    const pastSquares = sums.pastSquares[grid] as number;
    for (const rate of rates) {
      // z = y + d (x − τ)⁺: the level's residuals once the decline is put back.
      const sumZ = sums.sumY + rate * past;
      const sumZSquares = sums.sumYSquares + 2 * rate * pastY + rate * rate * pastSquares;
      least = Math.min(least, sumZSquares - (sumZ * sumZ) / n);
    }
  }
  return Math.sqrt(Math.max(least, 0) / (n - 3));
}
