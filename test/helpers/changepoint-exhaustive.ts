// The changepoint fit as it was before its candidates were scored from running sums: every
// candidate onset fitted by a pass over all points (quadratic). Kept as the oracle the fast fit must match.
/**
 * Where one instance's quality started to fall: a least-squares hinge
 * (a constant plateau, then a linear decline) over every candidate onset,
 * kept only when it explains significantly more than a constant does. An
 * instance whose decline is not significant is censored: its onset lies
 * somewhere past `maxTokens` (docs/DESIGN-NOTES.md, "What is learned").
 */

interface ChangepointFit {
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
export function fitChangepointExhaustively(
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The least-squares hinge. Within the gap between two observed sizes the
 * points left and right of the onset are fixed, and the unconstrained fit
 * (left: a constant, right: a line) is optimal whenever its crossing lies in
 * that gap; otherwise the optimum sits at an observed size, which is tried
 * as an onset directly. So noiseless hinge data is recovered exactly.
 */
function bestHinge(xs: number[], ys: number[]): Candidate | undefined {
  const n = xs.length;
  let best: Candidate | undefined;
  const consider = (candidate: Candidate | undefined) => {
    if (candidate && candidate.rate > 0 && (!best || candidate.sse < best.sse)) best = candidate;
  };
  for (let k = 0; k < n; k++) {
    const onset = xs[k] as number;
    let right = 0;
    for (let i = k + 1; i < n; i++) if ((xs[i] as number) > onset) right++;
    if (right >= MIN_DECLINE_POINTS) consider(hingeAt(xs, ys, onset));
    // Split between k and k+1: left 0..k, right k+1..n−1.
    const next = xs[k + 1];
    if (next === undefined || next === onset || n - k - 1 < MIN_DECLINE_POINTS) continue;
    consider(splitFit(xs, ys, k + 1, onset, next));
  }
  return best;
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
