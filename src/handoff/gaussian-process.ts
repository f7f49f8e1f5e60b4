import { cholesky, logDeterminant, solveLower, solveUpper } from "./cholesky.js";

/**
 * One agent instance's quality curve: a Gaussian process over x = context
 * tokens in thousands, on the residual from a prior mean (the pooled
 * profile's plateau-then-decline). Matérn 5/2 plus white noise, fitted by log
 * marginal likelihood over a small grid at every update, with at most
 * `maxPoints` inducing bins so 200 observations cost what 32 do
 * (docs/DESIGN-NOTES.md, "The handoff controller").
 */

export interface GpHyperparameters {
  lengthScale: number;
  signalVariance: number;
  noiseVariance: number;
}

export interface GpPrediction {
  mean: number;
  variance: number;
}

export interface GpGrid {
  lengthScales: number[];
  signalVariances: number[];
  noiseVariances: number[];
}

/**
 * Length scales from a few turns (8k tokens: a quality curve does not turn
 * within one turn's growth, and shorter scales fit single noisy turns) to
 * most of a window; signal and
 * noise standard deviations from 0.025 to 0.4 on a [0, 1] quality. Powers of
 * 4 so many (signal, noise) pairs share one noise-to-signal ratio and so one
 * Cholesky factor (see `refit`).
 */
const DEFAULT_GRID: GpGrid = {
  lengthScales: [8, 16, 32, 64, 128],
  signalVariances: [0.0025, 0.01, 0.04, 0.16],
  noiseVariances: [0.000625, 0.0025, 0.01, 0.04],
};

/**
 * A streaming-histogram bin: n observations at (about) one size, kept as
 * the mean and scatter of their qualities; residuals are taken against the
 * prior mean when the GP is fitted, so the prior mean may change.
 */
interface Bin {
  x: number;
  n: number;
  mean: number;
  /** Σ (quality − mean)² within the bin: the noise the bin's mean no longer shows. */
  scatter: number;
}

/** Matérn 5/2 with unit variance. */
function matern52(distance: number, lengthScale: number): number {
  const s = (Math.sqrt(5) * Math.abs(distance)) / lengthScale;
  return (1 + s + (s * s) / 3) * Math.exp(-s);
}

const LOG_2PI = Math.log(2 * Math.PI);

interface Posterior {
  lower: Float64Array;
  alpha: Float64Array;
}

export class InducingPointGP {
  private priorMean: (kiloTokens: number) => number;
  private readonly maxPoints: number;
  private readonly grid: GpGrid;
  private readonly offsetVariance: number;
  private readonly bins: Bin[] = [];
  private count = 0;
  private chosen: GpHyperparameters;
  private posterior: Posterior | undefined;

  /**
   * offsetVariance (default 0): variance of a constant the whole instance may
   * sit above or below the prior mean (its task is easier or harder than the
   * pooled peak says). Without it a level offset can only be explained by a
   * long length scale, which then smooths away the decline.
   */
  constructor(options: { priorMean: (kiloTokens: number) => number; maxPoints?: number; grid?: GpGrid; offsetVariance?: number }) {
    this.priorMean = options.priorMean;
    this.offsetVariance = options.offsetVariance ?? 0;
    if (!(this.offsetVariance >= 0)) throw new RangeError("offsetVariance must be non-negative");
    this.maxPoints = options.maxPoints ?? 32;
    if (!(this.maxPoints >= 2)) throw new RangeError("maxPoints must be at least 2");
    this.grid = options.grid ?? DEFAULT_GRID;
    if (this.grid.lengthScales.length === 0 || this.grid.signalVariances.length === 0 || this.grid.noiseVariances.length === 0) {
      throw new RangeError("every hyperparameter grid needs at least one value");
    }
    const middle = (values: number[]) => values[Math.floor((values.length - 1) / 2)] as number;
    // Before any data the likelihood is flat; the middle of the grid is the least committed prior.
    this.chosen = {
      lengthScale: middle(this.grid.lengthScales),
      signalVariance: middle(this.grid.signalVariances),
      noiseVariance: middle(this.grid.noiseVariances),
    };
  }

  get hyperparameters(): GpHyperparameters {
    return { ...this.chosen };
  }

  get observationCount(): number {
    return this.count;
  }

  /** The inducing bins' sizes (kilotokens), ascending, with how many observations each holds. */
  get inducingPoints(): ReadonlyArray<{ kiloTokens: number; count: number }> {
    return this.bins.map((bin) => ({ kiloTokens: bin.x, count: bin.n }));
  }

  /**
   * One observation; `priorMean`, when given, replaces the prior mean from
   * now on (a prior that learns from the instance's own data, such as the
   * onset posterior), refitted once with the new point.
   */
  add(kiloTokens: number, quality: number, priorMean?: (kiloTokens: number) => number): void {
    if (!Number.isFinite(kiloTokens) || !Number.isFinite(quality)) throw new RangeError("observations must be finite");
    if (priorMean) this.priorMean = priorMean;
    const bin: Bin = { x: kiloTokens, n: 1, mean: quality, scatter: 0 };
    let at = this.bins.length;
    while (at > 0 && (this.bins[at - 1] as Bin).x > kiloTokens) at--;
    this.bins.splice(at, 0, bin);
    this.count++;
    if (this.bins.length > this.maxPoints) this.mergeNearestPair();
    this.refit();
  }

  predict(kiloTokens: number): GpPrediction {
    const { mean, v } = this.project(kiloTokens);
    let variance = this.priorVariance();
    if (v) for (const value of v) variance -= value * value;
    return { mean, variance: Math.max(variance, 0) };
  }

  /** The posterior mean alone: O(bins), for scanning the observed sizes. */
  predictMean(kiloTokens: number): number {
    let mean = this.priorMean(kiloTokens);
    if (!this.posterior) return mean;
    for (let i = 0; i < this.bins.length; i++) {
      mean += this.kernel(kiloTokens - (this.bins[i] as Bin).x) * (this.posterior.alpha[i] as number);
    }
    return mean;
  }

  predictJoint(a: number, b: number): { a: GpPrediction; b: GpPrediction; covariance: number } {
    const first = this.project(a);
    const second = this.project(b);
    let varianceA = this.priorVariance();
    let varianceB = varianceA;
    let covariance = this.kernel(a - b);
    if (first.v && second.v) {
      for (let i = 0; i < first.v.length; i++) {
        const va = first.v[i] as number;
        const vb = second.v[i] as number;
        varianceA -= va * va;
        varianceB -= vb * vb;
        covariance -= va * vb;
      }
    }
    return {
      a: { mean: first.mean, variance: Math.max(varianceA, 0) },
      b: { mean: second.mean, variance: Math.max(varianceB, 0) },
      covariance,
    };
  }

  /**
   * log p(observations | h). The bins' means enter as points with noise σn²/n;
   * the scatter inside each bin adds the exact within-group term
   * −(n−1)/2 log(2πσn²) − scatter/(2σn²) − ½ log n, so merging points into a
   * bin does not hide the noise they showed from the noise estimate.
   */
  logMarginalLikelihood(h: GpHyperparameters): number {
    const n = this.bins.length;
    if (n === 0) return 0;
    const lower = cholesky(this.observationCovariance(h), n);
    if (!lower) return Number.NEGATIVE_INFINITY;
    const z = solveLower(lower, n, this.residuals());
    let quadratic = 0;
    for (const value of z) quadratic += value * value;
    return -0.5 * quadratic - 0.5 * logDeterminant(lower, n) - 0.5 * n * LOG_2PI + this.withinBinTerm(h.noiseVariance);
  }

  /** Prior covariance of the latent residual at distance d under the chosen hyperparameters. */
  private kernel(distance: number): number {
    return this.chosen.signalVariance * matern52(distance, this.chosen.lengthScale) + this.offsetVariance;
  }

  private priorVariance(): number {
    return this.chosen.signalVariance + this.offsetVariance;
  }

  private project(kiloTokens: number): { mean: number; v: Float64Array | undefined } {
    const mean = this.predictMean(kiloTokens);
    if (!this.posterior) return { mean, v: undefined };
    const cross = this.bins.map((bin) => this.kernel(kiloTokens - bin.x));
    return { mean, v: solveLower(this.posterior.lower, this.bins.length, cross) };
  }

  private residuals(): Float64Array {
    return Float64Array.from(this.bins, (bin) => bin.mean - this.priorMean(bin.x));
  }

  private withinBinTerm(noiseVariance: number): number {
    let term = 0;
    for (const bin of this.bins) {
      if (bin.n === 1) continue;
      term += -0.5 * (bin.n - 1) * (LOG_2PI + Math.log(noiseVariance)) - bin.scatter / (2 * noiseVariance) - 0.5 * Math.log(bin.n);
    }
    return term;
  }

  /** The unit-variance Matérn correlation of the bins. */
  private correlation(lengthScale: number): Float64Array {
    const n = this.bins.length;
    const matrix = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      matrix[i * n + i] = 1;
      const x = (this.bins[i] as Bin).x;
      for (let j = 0; j < i; j++) {
        const value = matern52(x - (this.bins[j] as Bin).x, lengthScale);
        matrix[i * n + j] = value;
        matrix[j * n + i] = value;
      }
    }
    return matrix;
  }

  /** σf² C + σo² 11ᵀ + σn² diag(1/nᵢ): the covariance of the bins' mean residuals. */
  private observationCovariance(h: GpHyperparameters): Float64Array {
    const n = this.bins.length;
    const matrix = this.correlation(h.lengthScale);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) matrix[i * n + j] = h.signalVariance * (matrix[i * n + j] as number) + this.offsetVariance;
      matrix[i * n + i] = (matrix[i * n + i] as number) + h.noiseVariance / (this.bins[i] as Bin).n;
    }
    return matrix;
  }

  /**
   * Grid search by log marginal likelihood. Without the offset,
   * K = σf² A with A = C + λ diag(1/nᵢ), λ = σn²/σf², so one Cholesky of A
   * per (ℓ, λ) serves every σf² with that ratio: log|K| = N log σf² + log|A|,
   * rᵀK⁻¹r = rᵀA⁻¹r / σf². The offset adds σo² 11ᵀ, a rank-one update:
   * the matrix determinant lemma and Sherman–Morrison need only 1ᵀA⁻¹1 and
   * 1ᵀA⁻¹r besides.
   */
  private refit(): void {
    const n = this.bins.length;
    const residuals = this.residuals();
    const ones = new Float64Array(n).fill(1);
    const b = this.offsetVariance;
    const byRatio = new Map<string, { ratio: number; pairs: Array<{ signalVariance: number; noiseVariance: number }> }>();
    for (const signalVariance of this.grid.signalVariances) {
      for (const noiseVariance of this.grid.noiseVariances) {
        const ratio = noiseVariance / signalVariance;
        const key = ratio.toPrecision(12);
        const group = byRatio.get(key) ?? { ratio, pairs: [] };
        group.pairs.push({ signalVariance, noiseVariance });
        byRatio.set(key, group);
      }
    }
    const within = new Map(this.grid.noiseVariances.map((noiseVariance) => [noiseVariance, this.withinBinTerm(noiseVariance)]));
    let best = Number.NEGATIVE_INFINITY;
    let chosen = this.chosen;
    for (const lengthScale of this.grid.lengthScales) {
      const correlation = this.correlation(lengthScale);
      for (const { ratio, pairs } of byRatio.values()) {
        const matrix = new Float64Array(correlation);
        for (let i = 0; i < n; i++) matrix[i * n + i] = (matrix[i * n + i] as number) + ratio / (this.bins[i] as Bin).n;
        const lower = cholesky(matrix, n);
        if (!lower) continue;
        const zr = solveLower(lower, n, residuals);
        const z1 = b > 0 ? solveLower(lower, n, ones) : undefined;
        let rr = 0;
        let oneOne = 0;
        let oneR = 0;
        for (let i = 0; i < n; i++) {
          rr += (zr[i] as number) ** 2;
          if (z1) {
            oneOne += (z1[i] as number) ** 2;
            oneR += (z1[i] as number) * (zr[i] as number);
          }
        }
        const logDet = logDeterminant(lower, n);
        for (const { signalVariance, noiseVariance } of pairs) {
          const lift = 1 + (b * oneOne) / signalVariance;
          const quadratic = rr / signalVariance - (b * (oneR / signalVariance) ** 2) / lift;
          const score =
            -0.5 * quadratic -
            0.5 * (n * Math.log(signalVariance) + logDet + Math.log(lift)) -
            0.5 * n * LOG_2PI +
            (within.get(noiseVariance) as number);
          if (score > best) {
            best = score;
            chosen = { lengthScale, signalVariance, noiseVariance };
          }
        }
      }
    }
    this.chosen = chosen;
    const lower = cholesky(this.observationCovariance(chosen), n);
    this.posterior = lower ? { lower, alpha: solveUpper(lower, n, solveLower(lower, n, residuals)) } : undefined;
  }

  /** Past maxPoints, the two nearest adjacent bins become one at their weighted mean (Welford's merge for the scatter). */
  private mergeNearestPair(): void {
    let at = 0;
    let gap = Number.POSITIVE_INFINITY;
    for (let i = 0; i + 1 < this.bins.length; i++) {
      const distance = (this.bins[i + 1] as Bin).x - (this.bins[i] as Bin).x;
      if (distance < gap) {
        gap = distance;
        at = i;
      }
    }
    const left = this.bins[at] as Bin;
    const right = this.bins[at + 1] as Bin;
    const n = left.n + right.n;
    const delta = right.mean - left.mean;
    this.bins.splice(at, 2, {
      x: (left.x * left.n + right.x * right.n) / n,
      n,
      mean: (left.mean * left.n + right.mean * right.n) / n,
      scatter: left.scatter + right.scatter + (delta * delta * left.n * right.n) / n,
    });
  }
}
