/**
 * The onset estimate with censored instances. An instance that never
 * declined says only "the onset lies beyond maxTokens": it should raise the
 * estimate where that bound exceeds it and say nothing where it does not. That
 * depends on where each bound lies relative to an estimate that moves, which
 * sums cannot tell, so bounds are kept as counts in log-spaced buckets (still
 * additive) and the estimate is a normal model's censored maximum likelihood
 * by EM (the Tobit E-step).
 */

/** Bucket k holds bounds in [1000·2^(k/4), 1000·2^((k+1)/4)) tokens: ±9 %, up to 4M tokens. */
export const CENSORED_BUCKETS = 48;
const PER_OCTAVE = 4;

export function censoredBucketOf(tokens: number): number {
  const index = Math.floor(PER_OCTAVE * Math.log2(Math.max(tokens, 1000) / 1000));
  return Math.min(CENSORED_BUCKETS - 1, Math.max(0, index));
}

/** A bucket's lower edge: the bound it certainly implies. */
export function censoredBoundOf(bucket: number): number {
  return 1000 * 2 ** (bucket / PER_OCTAVE);
}

/**
 * A bound this many standard deviations past the estimate belongs to a session
 * that never degraded, not to the spread of onsets: a normal model would take
 * it as near impossible and chase it, dragging the onset of the sessions that
 * do degrade far upward.
 */
const NEVER_DEGRADED_SDS = 3;
/** Onsets vary between sessions; a spread under 10 % of the onset is a model that has seen too little. */
const MIN_RELATIVE_SD = 0.1;
const ITERATIONS = 25;

export interface OnsetEvidence {
  /** Uncensored onsets: count, Σ, Σ². */
  count: number;
  sum: number;
  sumSquares: number;
  /**
   * Σ of the uncensored onsets' own squared estimation errors. Each is an
   * estimate x = θ + e of its session's onset θ, so E[x²] = θ² + E[e²]:
   * Σx² − Σe² is what the sessions' true onsets would give, and the spread
   * left is theirs (a deconvolution: the method of moments' empirical Bayes).
   */
  errorSquares: number;
  censored: ReadonlyArray<number>;
}

export interface OnsetEstimate {
  mean: number;
  sd: number;
}

/**
 * What a level takes from its parent for the onset: the parent's mean, how far
 * its children's means lie from it (`meanSd`, τ) and how much one child's
 * sessions' onsets vary about the child's own mean (`sd`, σ_w).
 */
export interface OnsetPrior {
  mean: number;
  meanSd: number;
  sd: number;
}

/** The located onsets of one child of a level: count, Σ, Σ², Σ of their estimates' squared errors. */
export type ChildOnsets = Pick<OnsetEvidence, "count" | "sum" | "sumSquares" | "errorSquares">;

/**
 * The prior a level's children take from it (docs/DESIGN-NOTES.md, "What is
 * learned"): σ_w² the pooled within-child spread of the children's located
 * onsets (their estimates' error taken out), the parent's spread where no
 * child has two; τ² by moments about the parent's mean, each child's
 * squared distance less its mean's error (n σ_w² + Σe²) / n², floored at
 * the onsets' own floor.
 */
export function onsetPriorOf(parent: OnsetEstimate, children: ReadonlyArray<ChildOnsets>): OnsetPrior {
  const floor = MIN_RELATIVE_SD * parent.mean;
  let within = 0;
  let degrees = 0;
  for (const child of children) {
    if (child.count < 2) continue;
    within += Math.max(child.sumSquares - (child.sum * child.sum) / child.count - child.errorSquares, 0);
    degrees += child.count - 1;
  }
  const withinVariance = Math.max(degrees > 0 ? within / degrees : parent.sd * parent.sd, floor * floor);
  let between = 0;
  let located = 0;
  for (const child of children) {
    if (child.count === 0) continue;
    between += (child.sum / child.count - parent.mean) ** 2 - (child.count * withinVariance + child.errorSquares) / child.count ** 2;
    located++;
  }
  const betweenVariance = located > 0 ? Math.max(between / located, floor * floor) : parent.sd * parent.sd;
  return { mean: parent.mean, meanSd: Math.sqrt(betweenVariance), sd: Math.sqrt(withinVariance) };
}

/**
 * EM for N(μ, σ²) from uncensored onsets (their estimation error taken out
 * of the spread) and right-censored bounds, pooled with the parent as a
 * hierarchical normal model (docs/DESIGN-NOTES.md, "What is learned"): σ²
 * is the sessions' spread about their mean with `spreadPseudoCount`
 * pseudo-observations of the parent's within-child spread, over n − 1 + k;
 * μ the posterior mean under μ ~ N(parent mean, τ²), so the parent weighs
 * SE² / (SE² + τ²) with SE² = (n σ² + Σe²) / n², the error of the mean of
 * n estimates; the sd returned is a new session's (σ² and the mean's
 * posterior variance); without sessions, a new child's: N(parent mean,
 * σ_w² + τ²). Each iteration
 * replaces a bound c by E[X | X > c] and E[X² | X > c] under the current
 * fit; a bound far below the estimate contributes ≈ μ (no pull), one above
 * it pulls the estimate up.
 */
export function estimateOnset(evidence: OnsetEvidence, prior: OnsetPrior, spreadPseudoCount: number): OnsetEstimate {
  const betweenVariance = prior.meanSd * prior.meanSd;
  const pooled = (own: Moments): OnsetEstimate => {
    // Nothing of its own: a new child of the parent, whose mean may lie anywhere among its siblings' (τ) and whose
    // sessions vary about it as theirs do (σ_w): the formula below at n = 0.
    if (own.count <= 0) return { mean: prior.mean, sd: Math.sqrt(prior.sd * prior.sd + betweenVariance) };
    const ownSpread = Math.max(own.squares - (own.sum * own.sum) / own.count - evidence.errorSquares, 0);
    const variance = (ownSpread + spreadPseudoCount * prior.sd * prior.sd) / Math.max(own.count - 1 + spreadPseudoCount, 1);
    // The sessions' estimates, not their onsets, are averaged: their mean errs by (n σ² + Σe²) / n², and the parent
    // weighs that against τ².
    const dataPrecision = own.count ** 2 / Math.max(own.count * variance + evidence.errorSquares, 1);
    const meanVariance = 1 / (dataPrecision + 1 / betweenVariance);
    const mean = meanVariance * (dataPrecision * (own.sum / own.count) + prior.mean / betweenVariance);
    return { mean, sd: Math.max(Math.sqrt(variance + meanVariance), MIN_RELATIVE_SD * mean) };
  };
  const base: Moments = { count: evidence.count, sum: evidence.sum, squares: evidence.sumSquares };
  let fit = pooled(base);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const own = { ...base };
    for (let bucket = 0; bucket < evidence.censored.length; bucket++) {
      const m = evidence.censored[bucket] ?? 0;
      if (m === 0) continue;
      const bound = censoredBoundOf(bucket);
      if (bound > fit.mean + NEVER_DEGRADED_SDS * fit.sd) continue;
      const alpha = (bound - fit.mean) / fit.sd;
      const hazard = inverseMills(alpha);
      own.count += m;
      own.sum += m * (fit.mean + fit.sd * hazard);
      own.squares += m * (fit.mean * fit.mean + fit.sd * fit.sd + fit.sd * (bound + fit.mean) * hazard);
    }
    const next = pooled(own);
    const settled = Math.abs(next.mean - fit.mean) < 1e-6 * fit.mean && Math.abs(next.sd - fit.sd) < 1e-6 * fit.sd;
    fit = next;
    if (settled) break;
  }
  return fit;
}

/** Onsets (and censored bounds' expectations) of one level: count, Σ, Σ². */
interface Moments {
  count: number;
  sum: number;
  squares: number;
}

/** φ(α) / (1 − Φ(α)), the expected excess (in sds) of a normal above α. */
function inverseMills(alpha: number): number {
  // For large α the ratio tends to α + 1/α; the direct quotient underflows there.
  if (alpha > 8) return alpha + 1 / alpha;
  const density = Math.exp(-0.5 * alpha * alpha) / Math.sqrt(2 * Math.PI);
  return density / (0.5 * erfc(alpha / Math.SQRT2));
}

/** Complementary error function (Numerical Recipes' erfcc, |relative error| < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
