import { median } from "../stats/median.js";

/**
 * Where one instance's quality started to fall: a least-squares hinge
 * (a constant plateau, then a linear decline) over every candidate onset,
 * kept only when it explains significantly more than a constant does. An
 * instance whose decline is not significant is censored: its onset lies
 * somewhere past `maxTokens` (docs/DESIGN-NOTES.md, "What is learned").
 */

export interface ChangepointFit {
  /** Undefined: no significant decline (censored at maxTokens). */
  onsetTokens?: number;
  plateau: number;
  declineRatePerKiloToken: number;
  /**
   * Robust standard deviation of the chosen fit's residuals (1.4826 × their
   * median absolute deviation): one very bad turn must not widen the degraded
   * margin for every later instance.
   */
  plateauNoise: number;
  maxTokens: number;
}

/** Fewer points than this cannot tell a hinge (3 parameters) from noise. */
const MIN_POINTS = 5;
/** A decline needs two points after the onset: one point alone is an outlier as easily as a trend. */
const MIN_DECLINE_POINTS = 2;
/**
 * F statistic (hinge against constant, 2 and n−3 degrees of freedom) a
 * decline must reach. The onset is searched over every split, so the usual
 * F(2, n−3) 1 % point (~5–7) would find declines in flat noise far too
 * often; sup-F tests over a searched break need about twice that
 * (Andrews 1993), hence 12.
 */
const SIGNIFICANT_F = 12;

interface Candidate {
  onsetKilo: number;
  plateau: number;
  rate: number;
  sse: number;
}

/**
 * `requireSignificance: false` keeps the best hinge even when it is not
 * significant on its own: for an instance the detector ended because it saw
 * the decline, the firing is that evidence, and the few points past the
 * onset are all the instance could show.
 */
export function fitChangepoint(
  points: ReadonlyArray<{ tokens: number; quality: number }>,
  options: { requireSignificance?: boolean } = {},
): ChangepointFit {
  const sorted = [...points].sort((a, b) => a.tokens - b.tokens);
  const n = sorted.length;
  const maxTokens = n === 0 ? 0 : (sorted[n - 1] as { tokens: number }).tokens;
  const xs = sorted.map((point) => point.tokens / 1000);
  const ys = sorted.map((point) => point.quality);
  let mean = 0;
  for (const y of ys) mean += y;
  mean = n === 0 ? 0 : mean / n;
  let sse0 = 0;
  for (const y of ys) sse0 += (y - mean) ** 2;
  const constant: ChangepointFit = {
    plateau: mean,
    declineRatePerKiloToken: 0,
    plateauNoise: robustSd(ys.map((y) => y - mean)),
    maxTokens,
  };
  if (n < MIN_POINTS || sse0 === 0) return constant;

  const best = bestHinge(xs, ys);
  if (!best) return constant;
  const improvement = (sse0 - best.sse) / 2;
  const residual = best.sse / (n - 3);
  const significant = residual <= 1e-12 * Math.max(sse0, 1e-12) ? improvement > 0 : improvement / residual > SIGNIFICANT_F;
  if (!significant && options.requireSignificance !== false) return constant;
  const onsetKilo = best.onsetKilo;
  return {
    onsetTokens: onsetKilo * 1000,
    plateau: best.plateau,
    declineRatePerKiloToken: best.rate,
    plateauNoise: robustSd(xs.map((x, i) => (ys[i] as number) - best.plateau + best.rate * Math.max(0, x - onsetKilo))),
    maxTokens,
  };
}

/** 1.4826 × the median absolute deviation of the residuals from their median: the normal sd, unmoved by a few outliers. */
function robustSd(residuals: number[]): number {
  if (residuals.length < 2) return 0;
  const center = median(residuals);
  return 1.4826 * median(residuals.map((residual) => Math.abs(residual - center)));
}

/**
 * The least-squares hinge. Within the gap between two observed sizes the
 * points left and right of the onset are fixed, and the unconstrained fit
 * (left: a constant, right: a line) is optimal whenever its crossing lies in
 * that gap; otherwise the optimum sits at an observed size, which is tried
 * as an onset directly. So noiseless hinge data is recovered exactly.
 *
 * Every candidate is scored from running sums in constant time: a pass over
 * all points per candidate made the fit quadratic in the instance's
 * observations, and it runs when an instance ends, inside the handoff. The
 * candidates are then refitted point by point, best score first, and the
 * first that holds is the answer: the same fit as before, with sums whose
 * rounding can only reorder near-ties.
 */
function bestHinge(xs: number[], ys: number[]): Candidate | undefined {
  const n = xs.length;
  const sums = new RangeSums(xs, ys);
  const scored: Array<{ sse: number; refit: () => Candidate | undefined }> = [];
  // Where the points after xs[k] start: the first strictly larger size (sizes may repeat).
  let firstLarger = 0;
  for (let k = 0; k < n; k++) {
    const onset = xs[k] as number;
    while (firstLarger < n && (xs[firstLarger] as number) <= onset) firstLarger++;
    if (n - firstLarger >= MIN_DECLINE_POINTS) {
      const sse = sums.hingeSse(firstLarger, onset);
      if (sse !== undefined) scored.push({ sse, refit: () => hingeAt(xs, ys, onset) });
    }
    // Split between k and k+1: left 0..k, right k+1..n−1. Points all at one size
    // make no line: only rounding would give it a slope.
    const next = xs[k + 1];
    if (next === undefined || next === onset || n - k - 1 < MIN_DECLINE_POINTS || xs[n - 1] === next) continue;
    const sse = sums.splitSse(k + 1, onset, next);
    if (sse !== undefined) scored.push({ sse, refit: () => splitFit(xs, ys, k + 1, onset, next) });
  }
  // Stable: of equal scores the earliest onset wins, as when candidates were compared in turn.
  scored.sort((a, b) => a.sse - b.sse);
  // The best score nearly always holds; only a near-tie at a constraint's edge tries the next.
  for (const { refit } of scored) {
    const candidate = refit();
    if (candidate && candidate.rate > 0) return candidate;
  }
  return undefined;
}

/**
 * Sums of x, x², y, y² and xy over any range of the sorted points, from
 * prefix sums. Sizes and qualities are centred first: the sums of squares
 * then stay small, and differences of them lose little to rounding.
 */
class RangeSums {
  private readonly x: Float64Array;
  private readonly xx: Float64Array;
  private readonly y: Float64Array;
  private readonly yy: Float64Array;
  private readonly xy: Float64Array;
  private readonly xCentre: number;

  constructor(xs: readonly number[], ys: readonly number[]) {
    const n = xs.length;
    this.xCentre = xs.reduce((total, x) => total + x, 0) / n;
    const yCentre = ys.reduce((total, y) => total + y, 0) / n;
    this.x = new Float64Array(n + 1);
    this.xx = new Float64Array(n + 1);
    this.y = new Float64Array(n + 1);
    this.yy = new Float64Array(n + 1);
    this.xy = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      const x = (xs[i] as number) - this.xCentre;
      const y = (ys[i] as number) - yCentre;
      this.x[i + 1] = (this.x[i] as number) + x;
      this.xx[i + 1] = (this.xx[i] as number) + x * x;
      this.y[i + 1] = (this.y[i] as number) + y;
      this.yy[i + 1] = (this.yy[i] as number) + y * y;
      this.xy[i + 1] = (this.xy[i] as number) + x * y;
    }
  }

  /** Σ over points [from, to) of one prefix array. */
  private static range(prefix: Float64Array, from: number, to: number): number {
    return (prefix[to] as number) - (prefix[from] as number);
  }

  /**
   * The SSE of `hingeAt(onset)`, whose decline covers the points from
   * `firstLarger` on; undefined where that fit is undefined or not a decline.
   */
  hingeSse(firstLarger: number, onset: number): number | undefined {
    const n = this.x.length - 1;
    const m = n - firstLarger;
    const c = onset - this.xCentre;
    const sx = RangeSums.range(this.x, firstLarger, n);
    const sy = RangeSums.range(this.y, firstLarger, n);
    // u = max(0, x − c): zero before firstLarger, x − c from it on.
    const su = sx - m * c;
    const suu = RangeSums.range(this.xx, firstLarger, n) - 2 * c * sx + m * c * c;
    const suy = RangeSums.range(this.xy, firstLarger, n) - c * sy;
    const totalY = this.y[n] as number;
    const centredUu = suu - (su * su) / n;
    if (!(centredUu > 0)) return undefined;
    const centredUy = suy - (su * totalY) / n;
    if (!(centredUy < 0)) return undefined;
    return (this.yy[n] as number) - (totalY * totalY) / n - (centredUy * centredUy) / centredUu;
  }

  /** The SSE of `splitFit(split, low, high)`; undefined where that fit is undefined. */
  splitSse(split: number, low: number, high: number): number | undefined {
    const n = this.x.length - 1;
    const m = n - split;
    const leftY = RangeSums.range(this.y, 0, split);
    const plateau = leftY / split;
    const sx = RangeSums.range(this.x, split, n);
    const sy = RangeSums.range(this.y, split, n);
    const centredXx = RangeSums.range(this.xx, split, n) - (sx * sx) / m;
    if (!(centredXx > 0)) return undefined;
    const centredXy = RangeSums.range(this.xy, split, n) - (sx * sy) / m;
    const slope = centredXy / centredXx;
    if (!(slope < 0)) return undefined;
    const intercept = (sy - slope * sx) / m;
    const onset = (plateau - intercept) / slope + this.xCentre;
    // A crossing within rounding of the gap's ends is scored; the refit decides whether it lies inside.
    const slack = 1e-9 * Math.max(Math.abs(low), Math.abs(high), 1);
    if (!(onset > low - slack && onset < high + slack)) return undefined;
    const leftSse = RangeSums.range(this.yy, 0, split) - (leftY * leftY) / split;
    const rightSse = RangeSums.range(this.yy, split, n) - (sy * sy) / m - (centredXy * centredXy) / centredXx;
    return leftSse + rightSse;
  }
}

/** Least squares of y = a − b·max(0, x − onset). */
function hingeAt(xs: number[], ys: number[], onset: number): Candidate | undefined {
  const n = xs.length;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const x = Math.max(0, (xs[i] as number) - onset);
    const y = ys[i] as number;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const denominator = n * sxx - sx * sx;
  if (!(denominator > 0)) return undefined;
  const slope = (n * sxy - sx * sy) / denominator;
  const intercept = (sy - slope * sx) / n;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += ((ys[i] as number) - intercept - slope * Math.max(0, (xs[i] as number) - onset)) ** 2;
  return { onsetKilo: onset, plateau: intercept, rate: -slope, sse };
}

/** Left [0, split) a constant, right [split, n) a free line; a candidate only if the two meet inside (low, high). */
function splitFit(xs: number[], ys: number[], split: number, low: number, high: number): Candidate | undefined {
  let plateau = 0;
  for (let i = 0; i < split; i++) plateau += ys[i] as number;
  plateau /= split;
  const m = xs.length - split;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = split; i < xs.length; i++) {
    const x = xs[i] as number;
    const y = ys[i] as number;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const denominator = m * sxx - sx * sx;
  if (!(denominator > 0)) return undefined;
  const slope = (m * sxy - sx * sy) / denominator;
  if (!(slope < 0)) return undefined;
  const intercept = (sy - slope * sx) / m;
  const onset = (plateau - intercept) / slope;
  if (!(onset > low && onset < high)) return undefined;
  let sse = 0;
  for (let i = 0; i < split; i++) sse += ((ys[i] as number) - plateau) ** 2;
  for (let i = split; i < xs.length; i++) sse += ((ys[i] as number) - intercept - slope * (xs[i] as number)) ** 2;
  return { onsetKilo: onset, plateau, rate: -slope, sse };
}
