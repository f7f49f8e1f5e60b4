// The learning reference's posterior, for scripts/bench-handoff-reference.mjs: Bayes over the handoff simulator's own
// family (scripts/lib/handoff-simulator.mjs), where a (type, model) pair's parameters are not given but have a particle
// posterior computed from the earlier sessions' observed turns, each session's likelihood marginalised over its own
// hidden onset and the "never degrades" case. No import of dist or of the simulator: the pieces are pure, and the
// caller gives the random source and the window.
//
// A particle is [log mean onset at the run's start, drift over the run, log spread of the session's onset, peak,
// log decline rate per 1,000 tokens, noise sd, never-degrading share] (see parameterBox).

/** The simulator's outlier rate: part of the family the reference knows. */
export const OUTLIER_RATE = 0.04;
const LN2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * The log-likelihood of an observed quality when the true one is `expected`, as the simulator makes it with noise `sd`:
 * a normal inlier, and 4 % outliers uniform over 10–50 % of the true quality, widened by two sds.
 */
export function observationLogLikelihood(sd, expected, observed) {
  const inlier = ((1 - OUTLIER_RATE) * Math.exp(-0.5 * ((observed - expected) / sd) ** 2 - LN2PI)) / sd;
  const low = 0.1 * expected - 2 * sd;
  const high = 0.5 * expected + 2 * sd;
  const outlier = observed >= low && observed <= high ? OUTLIER_RATE / (high - low) : 0;
  return Math.log(inlier + outlier + 1e-300);
}

/** The prior: uniform on each coordinate over the simulator's generating ranges (transformed), as [name, low, high]. */
export function parameterBox(window) {
  return [
    ["logMeanOnset", Math.log(0.085 * window), Math.log(0.46 * window)], // model onset 10–40 % × type shift 0.85–1.15
    ["drift", -0.15, 0.15],
    ["logSpread", Math.log(0.03), Math.log(0.3)], // the simulator's is 0.1: learned, not given
    ["peak", 0.85, 0.95],
    ["logRate", Math.log(0.006 * 0.85), Math.log(0.03 * 0.95)], // per 1,000 tokens
    ["noise", 0.03, 0.07],
    ["never", 0, 0.5], // the simulator's is 0.15: learned, not given
  ];
}

/** The session's onset grid: GRID_POINTS midpoints over ±4 sd of its log onset, with the standard normal's log mass at each. */
export const GRID_POINTS = 48;
export const GRID_Z = Array.from({ length: GRID_POINTS }, (_, i) => -4 + (8 * (i + 0.5)) / GRID_POINTS);
export const GRID_LOG_MASS = GRID_Z.map((z) => -0.5 * z * z - LN2PI + Math.log(8 / GRID_POINTS));

/** A particle's grid of onsets (tokens) for a session at `progress` (0 at the run's start, 1 at its end). */
export function onsetsOf(v, progress) {
  const mean = Math.exp(v[0]) * (1 + v[1] * progress);
  const spread = Math.exp(v[2]);
  return GRID_Z.map((z) => mean * Math.exp(spread * z));
}

export function logSumExp(values) {
  let top = Number.NEGATIVE_INFINITY;
  for (const x of values) if (x > top) top = x;
  if (top === Number.NEGATIVE_INFINITY) return top;
  let sum = 0;
  for (const x of values) sum += Math.exp(x - top);
  return top + Math.log(sum);
}

/** The expected quality at `context` under a particle whose session's onset is `onset`. */
const declined = (peak, rate, onset, context) => Math.max(0, peak - rate * (context - onset));

/**
 * One session's log-likelihood under particle v, marginalised over its onset grid and "never". `d` is
 * { xs, ys, progress }: the contexts (increasing) and observed qualities of the turns the posterior is given.
 */
export function sessionLogLikelihood(v, d) {
  const peak = v[3];
  const rate = Math.exp(v[4]) / 1000;
  const sd = v[5];
  const turns = d.xs.length;
  const flat = new Float64Array(turns + 1); // the plateau's log-likelihood of the first t turns
  for (let t = 0; t < turns; t++) flat[t + 1] = flat[t] + observationLogLikelihood(sd, peak, d.ys[t]);
  const onsets = onsetsOf(v, d.progress);
  const terms = new Array(GRID_POINTS + 1);
  for (let g = 0; g < GRID_POINTS; g++) {
    const onset = onsets[g];
    let k = 0;
    while (k < turns && d.xs[k] <= onset) k++;
    let sum = flat[k];
    for (let t = k; t < turns; t++) sum += observationLogLikelihood(sd, declined(peak, rate, onset, d.xs[t]), d.ys[t]);
    terms[g] = Math.log(1 - v[6] + 1e-300) + GRID_LOG_MASS[g] + sum;
  }
  terms[GRID_POINTS] = Math.log(v[6] + 1e-300) + flat[turns];
  return logSumExp(terms);
}

/**
 * Systematic resampling: the particle index each of the n draws takes, for linear weights summing to one and one
 * uniform offset u0 in [0, 1/n). Averaged over u0, index i is drawn n × weights[i] times.
 */
export function systematicIndices(weights, u0) {
  const n = weights.length;
  const indices = new Array(n);
  let cumulative = weights[0];
  let i = 0;
  for (let j = 0; j < n; j++) {
    const u = u0 + j / n;
    while (u > cumulative && i < n - 1) cumulative += weights[++i];
    indices[j] = i;
  }
  return indices;
}

/** Normalises a pair's log weights in place to sum to one. */
export function normalise(logWeights) {
  const top = Math.max(...logWeights);
  let sum = 0;
  for (let j = 0; j < logWeights.length; j++) sum += Math.exp(logWeights[j] - top);
  for (let j = 0; j < logWeights.length; j++) logWeights[j] -= top + Math.log(sum);
}

/** The effective sample size of normalised log weights. */
export function effectiveSampleSize(logWeights) {
  let sumOfSquares = 0;
  for (let j = 0; j < logWeights.length; j++) sumOfSquares += Math.exp(2 * logWeights[j]);
  return 1 / sumOfSquares;
}

/** Random-walk Metropolis steps per particle after a resampling. */
const MOVES = 4;

/**
 * Per-pair particle posteriors over `box` (parameterBox), `particles` a pair, drawn and moved with `random` (uniform
 * [0, 1)) and `gaussian(random)`. A pair's state: its particles, their normalised log weights, each particle's
 * log-likelihood of all the pair's sessions (lik), the sessions (data), and the resample-move counts.
 */
export function createPosterior({ particles, random, gaussian, box }) {
  const inBox = (v) => v.every((x, i) => x >= box[i][1] && x <= box[i][2]);
  const pairs = new Map();

  /** Resamples (systematic) and moves each particle by random-walk Metropolis on the pair's full likelihood. */
  const resampleMove = (pair) => {
    const weights = Array.from(pair.logw, Math.exp);
    const indices = systematicIndices(weights, random() / particles);
    const next = indices.map((i) => [...pair.particles[i]]);
    const nextLik = Float64Array.from(indices, (i) => pair.lik[i]);
    const step = stepSizes(next, box);
    for (let j = 0; j < particles; j++) {
      for (let m = 0; m < MOVES; m++) {
        const proposal = next[j].map((x, d) => x + step[d] * gaussian(random));
        pair.proposed++;
        if (!inBox(proposal)) continue;
        let lik = 0;
        for (const d of pair.data) lik += sessionLogLikelihood(proposal, d);
        if (Math.log(random()) < lik - nextLik[j]) {
          next[j] = proposal;
          nextLik[j] = lik;
          pair.accepted++;
        }
      }
    }
    pair.particles = next;
    pair.lik = nextLik;
    pair.logw = new Float64Array(particles).fill(-Math.log(particles));
    pair.moves++;
  };

  return {
    /** The pair's posterior, drawn from the prior at its first use. */
    pairOf(key) {
      if (!pairs.has(key)) {
        const drawn = Array.from({ length: particles }, () => box.map(([, low, high]) => low + (high - low) * random()));
        pairs.set(key, {
          particles: drawn,
          logw: new Float64Array(particles),
          lik: new Float64Array(particles),
          data: [],
          moves: 0,
          accepted: 0,
          proposed: 0,
        });
      }
      return pairs.get(key);
    },
    /** Gives the pair one more session's turns ({ xs, ys, progress }); resample-move when the ESS falls below half. */
    learnFrom(pair, d) {
      pair.data.push(d);
      for (let j = 0; j < particles; j++) {
        const lik = sessionLogLikelihood(pair.particles[j], d);
        pair.logw[j] += lik;
        pair.lik[j] += lik;
      }
      normalise(pair.logw);
      if (effectiveSampleSize(pair.logw) < particles / 2) resampleMove(pair);
    },
  };
}

/** The proposal's step per coordinate: the resampled set's spread (floored) scaled by 2.38 / √D, halved. */
function stepSizes(next, box) {
  const n = next.length;
  const dimensions = box.length;
  const mean = Array(dimensions).fill(0);
  const variance = Array(dimensions).fill(0);
  for (const v of next) for (let d = 0; d < dimensions; d++) mean[d] += v[d] / n;
  for (const v of next) for (let d = 0; d < dimensions; d++) variance[d] += (v[d] - mean[d]) ** 2 / n;
  return variance.map((s, d) => Math.max(Math.sqrt(s), 1e-3 * (box[d][2] - box[d][1])) * (2.38 / Math.sqrt(dimensions)) * 0.5);
}

/**
 * A session's joint posterior over (particle, onset cell), before its own turns: per particle its onsets, the log
 * weight of each cell (GRID_POINTS onsets, then "never") and its decline per token.
 */
export function sessionCells(pair, progress) {
  return pair.particles.map((v, j) => {
    const onsets = onsetsOf(v, progress);
    const lw = new Float64Array(GRID_POINTS + 1);
    for (let g = 0; g < GRID_POINTS; g++) lw[g] = pair.logw[j] + Math.log(1 - v[6] + 1e-300) + GRID_LOG_MASS[g];
    lw[GRID_POINTS] = pair.logw[j] + Math.log(v[6] + 1e-300);
    return { v, onsets, lw, rate: Math.exp(v[4]) / 1000 };
  });
}

/** The posterior predictive P(onset ≤ x) over the session's cells, and the posterior mean onset given it degrades. */
export function predictive(cells, x) {
  let top = Number.NEGATIVE_INFINITY;
  for (const c of cells) for (let g = 0; g <= GRID_POINTS; g++) if (c.lw[g] > top) top = c.lw[g];
  let total = 0;
  let degraded = 0;
  let onsetSum = 0;
  let degradingTotal = 0;
  for (const c of cells)
    for (let g = 0; g <= GRID_POINTS; g++) {
      const w = Math.exp(c.lw[g] - top);
      total += w;
      if (g < GRID_POINTS) {
        onsetSum += w * c.onsets[g];
        degradingTotal += w;
      }
      if (g < GRID_POINTS && c.onsets[g] <= x) degraded += w;
    }
  return { p: degraded / total, mean: onsetSum / degradingTotal };
}

/** Updates the session's cells by one observed turn (quality y at context). */
export function observeCells(cells, context, y) {
  for (const c of cells) {
    const [, , , peak, , sd] = c.v;
    const flat = observationLogLikelihood(sd, peak, y);
    for (let g = 0; g < GRID_POINTS; g++)
      c.lw[g] += c.onsets[g] < context ? observationLogLikelihood(sd, declined(peak, c.rate, c.onsets[g], context), y) : flat;
    c.lw[GRID_POINTS] += flat;
  }
}

/** The pair's posterior means before a session (weights as they stand: a fresh pair's are unnormalised ones). */
export function posteriorSummary(pair, progress) {
  const w = Array.from(pair.logw, Math.exp);
  const pm = (f) => pair.particles.reduce((a, v, j) => a + w[j] * f(v), 0);
  return {
    onset: +pm((v) => Math.exp(v[0]) * (1 + v[1] * progress)).toFixed(0),
    sd: +pm((v) => Math.exp(v[2])).toFixed(3),
    peak: +pm((v) => v[3]).toFixed(4),
    rate: +pm((v) => Math.exp(v[4])).toFixed(5),
    noise: +pm((v) => v[5]).toFixed(4),
    never: +pm((v) => v[6]).toFixed(3),
    ess: +effectiveSampleSize(pair.logw).toFixed(1),
  };
}
