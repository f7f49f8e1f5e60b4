import { failedTurnProbability, SUSTAINED_FAILED_TURNS } from "./failed-turns.js";

/**
 * Where this instance's quality starts to fall, as a posterior over a grid
 * of onsets (and "not within this window"), from the learned profile's
 * onset as the prior and the instance's own observations. Its predictive
 * mean is the GP's prior mean: past the learned onset it predicts a decline
 * only as far as the instance's data has not contradicted one. A prior mean
 * that declines at the learned onset whatever the data says hands off every
 * session that would never have degraded, and those whose onset comes
 * later than usual (docs/BENCHMARKS.md, "Handoff controller").
 *
 * Model, for each state (onset τ, decline rate d): quality = c − d·(x − τ)⁺
 * + noise, with the instance's level c ~ N(peak, s0²) integrated out in
 * closed form, so an instance whose plateau sits below the pooled peak is
 * not taken for one that has declined from the start. Sufficient sums per
 * onset make an update O(states).
 *
 * The sums are the likelihood of what was observed, apart from the prior:
 * `memory()` hands them, with the prior, to the next instance of the same
 * session, agent type and model. Its onset is the same one (a handoff brings
 * the context back below it, and the next instance crosses it again), so
 * that instance's posterior is the prior times everything the session has
 * seen; starting from the prior alone is the case of no evidence.
 */

export interface OnsetPrior {
  /** The learned onset (tokens) and its spread across sessions. */
  onsetTokens: number;
  onsetSdTokens: number;
  /** Share of instances that do not degrade within the window at all. */
  neverShare: number;
  peakQuality: number;
  /** Quality lost per 1,000 tokens past the onset (the learned mean; states try half and twice it too). */
  declineRatePerKiloToken: number;
  /** Per-turn noise of the quality signal. */
  noiseSd: number;
  windowTokens: number;
}

/**
 * Onsets tried, evenly over the window (and one state for "none"): 500
 * tokens apart in a 200k window, well under a turn's growth. At 100 (2,000
 * apart, a turn's growth and the whole spread of a 20k onset) an onset the
 * session's instances had located was still known to a cell only, and
 * carried instances fired a cell before it.
 */
const ONSET_STATES = 400;
const DECLINE_MULTIPLIERS = [0.5, 1, 2] as const;
/**
 * The prior's tails. Learned onsets come from the instances the controller
 * caught, and those that never degrade are hard to tell from those it ended
 * early: a floor under "never", and a share of the onset prior spread over
 * the whole window, keep a long plateau explainable by something other
 * than an overdue decline.
 */
const MIN_NEVER_SHARE = 0.1;
const UNIFORM_SHARE = 0.15;
/** Steps the instance's noise estimate looks at, and needs before it counts. */
const NOISE_WINDOW = 40;
const MIN_NOISE_STEPS = 5;
/** How far an instance's plateau may sit from the pooled peak (the GP's instance offset says the same). */
const LEVEL_SD = 0.1;

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

interface State {
  /** Index into the onset grid; -1 for "no onset in the window". */
  grid: number;
  /** kilotokens; Infinity for "no onset in the window" */
  onset: number;
  decline: number;
  logPrior: number;
}

export class OnsetPosterior {
  private readonly states: State[] = [];
  /** The grid's onsets (kilotokens) and, per onset, the sums of `OnsetEvidence`. */
  private readonly onsets: Float64Array;
  private readonly past: Float64Array;
  private readonly pastSquares: Float64Array;
  private readonly pastY: Float64Array;
  private noiseVariance: number;
  private readonly priorNoiseSd: number;
  /** |y − previous y| of the last observations, for the instance's own noise. */
  private readonly steps: number[] = [];
  private lastQuality: number | undefined;
  /** How many turns in a row were taken for failed ones. */
  private run = 0;
  private readonly levelVariance = LEVEL_SD * LEVEL_SD;
  private readonly levelMean: number;
  private count = 0;
  /** Σ of the observations' inlier weights, and Σ of their outlier probabilities. */
  private weight = 0;
  private outliers = 0;
  private carried = 0;
  private sumY = 0;
  private sumYSquares = 0;
  private weights: Float64Array | undefined;

  /** `carried`: what the session's earlier instances observed (another posterior's `memory().evidence`); none: the prior alone. */
  constructor(
    private readonly prior: OnsetPrior,
    carried?: OnsetEvidence,
  ) {
    this.priorNoiseSd = Math.max(prior.noiseSd, 0.01);
    this.noiseVariance = this.priorNoiseSd ** 2;
    this.levelMean = prior.peakQuality;
    const windowKilo = prior.windowTokens / 1000;
    this.onsets = Float64Array.from({ length: ONSET_STATES }, (_, index) => ((index + 0.5) * windowKilo) / ONSET_STATES);
    this.past = new Float64Array(ONSET_STATES);
    this.pastSquares = new Float64Array(ONSET_STATES);
    this.pastY = new Float64Array(ONSET_STATES);
    const mean = prior.onsetTokens / 1000;
    const sd = Math.max(prior.onsetSdTokens / 1000, windowKilo / ONSET_STATES);
    const never = Math.min(Math.max(prior.neverShare, MIN_NEVER_SHARE), 0.9);
    // The onset prior over the grid: the learned normal, with a share spread evenly over the window
    // (an instance whose onset comes much later than usual is rare, not impossible), normalised to 1 − never.
    const normal = Array.from(this.onsets, (onset) => Math.exp(-0.5 * ((onset - mean) / sd) ** 2));
    const normalTotal = normal.reduce((sum, weight) => sum + weight, 0) || 1;
    normal.forEach((weight, grid) => {
      const density = (1 - UNIFORM_SHARE) * (weight / normalTotal) + UNIFORM_SHARE / ONSET_STATES;
      for (const multiplier of DECLINE_MULTIPLIERS) {
        const share = ((1 - never) * density) / DECLINE_MULTIPLIERS.length;
        if (share <= 1e-12) continue;
        this.states.push({
          grid,
          onset: this.onsets[grid] as number,
          decline: prior.declineRatePerKiloToken * multiplier,
          logPrior: Math.log(share),
        });
      }
    });
    this.states.push({ grid: -1, onset: Number.POSITIVE_INFINITY, decline: 0, logPrior: Math.log(never) });
    if (carried && carried.past.length === ONSET_STATES) this.carry(carried);
  }

  private carry(evidence: OnsetEvidence): void {
    this.carried = evidence.count;
    this.count = evidence.count;
    this.weight = evidence.weight ?? evidence.count;
    this.outliers = evidence.outliers ?? 0;
    this.sumY = evidence.sumY;
    this.sumYSquares = evidence.sumYSquares;
    this.past.set(evidence.past);
    this.pastSquares.set(evidence.pastSquares);
    this.pastY.set(evidence.pastY);
    // The noise is the session's; the step from the last instance's final turn to this one's first is a step of neither.
    this.steps.push(...evidence.noiseSteps.slice(-NOISE_WINDOW));
    this.estimateNoise();
  }

  /** The prior and every observation so far (carried ones included), for the session's next instance. */
  memory(): OnsetMemory {
    return {
      prior: { ...this.prior },
      evidence: {
        count: this.count,
        sumY: this.sumY,
        sumYSquares: this.sumYSquares,
        past: Array.from(this.past),
        pastSquares: Array.from(this.pastSquares),
        pastY: Array.from(this.pastY),
        noiseSteps: [...this.steps],
        weight: this.weight,
        outliers: this.outliers,
      },
    };
  }

  get observationCount(): number {
    return this.count;
  }

  /** How many of the observations came from the session's earlier instances. */
  get carriedCount(): number {
    return this.carried;
  }

  /**
   * One observation, weighed by its probability of not being a failed turn
   * (`failedTurnProbability`) in sums of a weighted Gaussian: a failed turn
   * hardly moves the posterior, a turn within the noise counts whole
   * (clipped at the prediction instead, a failed turn was a turn of decline
   * 1.5 noise sds deep). The third failed turn in a row is a cliff: whole.
   */
  add(kiloTokens: number, observed: number): void {
    this.learnNoise(observed);
    // The prediction's variance: the noise's and what the instance's level is still unsure of.
    const variance = this.noiseVariance + 1 / (1 / this.levelVariance + this.weight / this.noiseVariance);
    const prediction = { expected: this.mean(kiloTokens), variance, outliers: this.outliers, turns: this.count };
    const outlier = failedTurnProbability(observed, prediction);
    this.run = outlier > 0.5 ? this.run + 1 : 0;
    const weight = this.run >= SUSTAINED_FAILED_TURNS ? 1 : 1 - outlier;
    this.count++;
    this.weight += weight;
    this.outliers += 1 - weight;
    this.sumY += weight * observed;
    this.sumYSquares += weight * observed * observed;
    // The grid is in increasing order: past the first onset at or beyond x, no state has seen a decline.
    for (let grid = 0; grid < ONSET_STATES; grid++) {
      const past = kiloTokens - (this.onsets[grid] as number);
      if (!(past > 0)) break;
      this.past[grid] = (this.past[grid] as number) + weight * past;
      this.pastSquares[grid] = (this.pastSquares[grid] as number) + weight * past * past;
      this.pastY[grid] = (this.pastY[grid] as number) + weight * observed * past;
    }
    this.weights = undefined;
  }

  /** The posterior predictive mean quality at `kiloTokens`. */
  mean(kiloTokens: number): number {
    const weights = this.posterior();
    let mean = 0;
    this.states.forEach((state, index) => {
      const weight = weights[index] as number;
      if (weight < 1e-9) return;
      mean += weight * (this.levelOf(state) - state.decline * Math.max(0, kiloTokens - state.onset));
    });
    return mean;
  }

  /**
   * The noise is the instance's own once it has shown it, never below the
   * profile's: the median step between successive observations (a robust
   * estimate that a slow trend barely moves: MAD of differences / √2). A
   * noisier instance than the profile says would otherwise read its noise
   * as a decline.
   */
  private learnNoise(observed: number): void {
    if (this.lastQuality !== undefined) {
      this.steps.push(Math.abs(observed - this.lastQuality));
      if (this.steps.length > NOISE_WINDOW) this.steps.shift();
    }
    this.lastQuality = observed;
    this.estimateNoise();
  }

  private estimateNoise(): void {
    if (this.steps.length < MIN_NOISE_STEPS) return;
    const sorted = [...this.steps].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] as number;
    const sd = Math.max(this.priorNoiseSd, (1.4826 * median) / Math.SQRT2);
    if (sd * sd !== this.noiseVariance) {
      this.noiseVariance = sd * sd;
      this.weights = undefined;
    }
  }

  /** The instance's plateau: the posterior mean of its level, before any decline. */
  plateau(): number {
    const weights = this.posterior();
    let level = 0;
    this.states.forEach((state, index) => {
      level += (weights[index] as number) * this.levelOf(state);
    });
    return level;
  }

  /** P(the onset lies before `kiloTokens` | what the instance saw). */
  probabilityDegradedBy(kiloTokens: number): number {
    const weights = this.posterior();
    let probability = 0;
    this.states.forEach((state, index) => {
      if (state.onset < kiloTokens) probability += weights[index] as number;
    });
    return probability;
  }

  /** The posterior mean of the instance's level c given the state: its plateau. */
  private levelOf(state: State): number {
    const n = this.weight;
    if (this.count === 0) return this.levelMean;
    // z = y + d (x − τ)⁺ are the observations with the decline put back: all of them measure c.
    const sumZ = this.sumY + state.decline * this.sumOf(this.past, state);
    return (this.levelMean / this.levelVariance + sumZ / this.noiseVariance) / (1 / this.levelVariance + n / this.noiseVariance);
  }

  private sumOf(sums: Float64Array, state: State): number {
    return state.grid < 0 ? 0 : (sums[state.grid] as number);
  }

  /** log p(observations | state), the level c integrated out. */
  private logLikelihood(state: State): number {
    const n = this.weight;
    if (this.count === 0) return 0;
    const s2 = this.noiseVariance;
    const b = this.levelVariance;
    // The marginal of z − m0 ~ N(0, σ²W⁻¹ + b 11ᵀ), W the observations' weights: Sherman–Morrison and the determinant
    // lemma, with n the weights' sum and every sum weighted (log|σ²W⁻¹| is the same for every state).
    const d = state.decline;
    const sumZ = this.sumY + d * this.sumOf(this.past, state);
    const sumZSquares = this.sumYSquares + 2 * d * this.sumOf(this.pastY, state) + d * d * this.sumOf(this.pastSquares, state);
    const sumR = sumZ - n * this.levelMean;
    const sumRSquares = sumZSquares - 2 * this.levelMean * sumZ + n * this.levelMean * this.levelMean;
    const quadratic = (sumRSquares - (b / (s2 + n * b)) * sumR * sumR) / s2;
    return -0.5 * quadratic - 0.5 * Math.log(1 + (n * b) / s2);
  }

  private posterior(): Float64Array {
    if (this.weights) return this.weights;
    this.weights = normalised(this.states.map((state) => state.logPrior + this.logLikelihood(state)));
    return this.weights;
  }

  /**
   * Where the observations alone (this instance's and those carried from
   * the session's earlier ones) put the onset, for the profile. The
   * posterior above starts from the profile's own onset, and a profile fed
   * estimates shrunk toward itself would hardly move from its default; so
   * here the prior is flat: even odds between an onset below the largest
   * size observed and none there (later, or never), and every onset below
   * it equally likely. `located`: the probability of an onset below that
   * size reaches `level`; the estimate is then the median of those onsets,
   * with their decline rate, and `errorSdTokens` its own root mean squared
   * error under that posterior: how far the session's true onset may lie
   * from it. The profile takes that error back out of the spread of the
   * estimates (`estimateOnset`), or each session's error would widen every
   * later session's prior. Otherwise the observations cannot place it.
   */
  evidenceOnset(level: number): LocatedOnset | { located: false } {
    // Onsets the observations reached: those with any observation past them (the grid ascends).
    let reached = 0;
    while (reached < ONSET_STATES && (this.past[reached] as number) > 0) reached++;
    if (reached === 0) return { located: false };
    const inside = this.states.filter((state) => state.grid >= 0 && state.grid < reached);
    // Every state beyond the largest size has the likelihood of "never": nothing was observed past its onset.
    const beyond = this.logLikelihood({ grid: -1, onset: Number.POSITIVE_INFINITY, decline: 0, logPrior: 0 });
    const perInside = Math.log(0.5 / inside.length);
    const weights = normalised([...inside.map((state) => perInside + this.logLikelihood(state)), Math.log(0.5) + beyond]);
    const locatedProbability = 1 - (weights[inside.length] as number);
    if (locatedProbability < level) return { located: false };
    let cumulative = 0;
    let decline = 0;
    let median: number | undefined;
    inside.forEach((state, index) => {
      const weight = (weights[index] as number) / locatedProbability;
      decline += weight * state.decline;
      cumulative += weight;
      if (median === undefined && cumulative >= 0.5) median = state.onset;
    });
    const estimate = median ?? (inside.at(-1) as State).onset;
    let squaredError = 0;
    inside.forEach((state, index) => {
      squaredError += ((weights[index] as number) / locatedProbability) * (state.onset - estimate) ** 2;
    });
    return {
      located: true,
      onsetTokens: estimate * 1000,
      declineRatePerKiloToken: decline,
      errorSdTokens: Math.sqrt(squaredError) * 1000,
    };
  }
}

/** exp of the logs, scaled to sum to 1. */
function normalised(logs: number[]): Float64Array {
  const top = Math.max(...logs);
  const weights = Float64Array.from(logs, (value) => Math.exp(value - top));
  const total = weights.reduce((sum, value) => sum + value, 0);
  for (let index = 0; index < weights.length; index++) weights[index] = (weights[index] as number) / total;
  return weights;
}
