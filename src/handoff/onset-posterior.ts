import { normalised } from "../stats/log-weights.js";
import { failedTurnProbability, SUSTAINED_FAILED_TURNS } from "./failed-turns.js";
import { instanceNoiseSd, stepNoiseSd } from "./instance-noise.js";
import type { LocatedOnset, OnsetEvidence, OnsetMemory, OnsetPrior } from "./onset-evidence.js";
import { levelGiven, type OnsetSums, onsetLogLikelihood } from "./onset-likelihood.js";
import { declineLikelihoods, evidenceOnset, type PosteriorEvidence } from "./onset-profile-evidence.js";

export type { LocatedOnset, OnsetEvidence, OnsetMemory, OnsetPrior } from "./onset-evidence.js";

/**
 * Where this instance's quality starts to fall, as a posterior over a grid of onsets (and "not within this window"), from the learned
 * profile's onset as the prior and the instance's own observations. Its predictive mean is the GP's prior mean: past the learned onset it
 * predicts a decline only as far as the instance's data has not contradicted one. A prior mean that declines at the learned onset whatever
 * the data says hands off every session that would never have degraded, and those whose onset comes later than usual (docs/BENCHMARKS.md,
 * "Handoff controller").
 *
 * Model, for each state (onset τ, decline rate d): quality = c − d·(x − τ)⁺ + noise, with the instance's level c ~ N(peak, s0²) integrated
 * out in closed form, so an instance whose plateau sits below the pooled peak is not taken for one that has declined from the start.
 * Sufficient sums per onset make an update O(states).
 *
 * The sums are the likelihood of what was observed, apart from the prior: `memory()` hands them, with the prior, to the next instance of
 * the same session, agent type and model. Its onset is the same one (a handoff brings the context back below it, and the next instance
 * crosses it again), so that instance's posterior is the prior times everything the session has seen; starting from the prior alone is
 * the case of no evidence.
 */

/**
 * Onsets tried, evenly over the window (and one state for "none"): 500 tokens apart in a 200k window, well under a turn's growth. At
 * 100 (2,000 apart) an onset the session's instances had located was known to a cell only, and carried instances fired a cell before it.
 */
const ONSET_STATES = 400;
/**
 * The decline rates tried, as multiples of the learned one: nine steps 2^¼ apart from ½ to 2, so that any rate in that
 * range lies within 9 % of a state. With ½, 1 and 2 alone a model whose learned rate was 1.44× its true one had its
 * rate between two states, and its onsets were moved to make up the rest (docs/DESIGN-NOTES.md, "The Gaussian process").
 */
export const DECLINE_MULTIPLIERS: readonly number[] = Array.from({ length: 9 }, (_, step) => 2 ** ((step - 4) / 4));
/**
 * The rates' prior: log-normal around the learned rate, 0.2 wide on the log scale (its states 2^±½ away weigh 0.22 of
 * its own). The profile learns the rate from the sessions' likelihoods, without the pull toward itself that made a
 * flat prior the safe one; chosen on calibration seeds 12, 13 and 15 against 0.35 and flat (docs/BENCHMARKS.md).
 */
const RATE_WEIGHTS = normalised(DECLINE_MULTIPLIERS.map((multiplier) => -0.5 * (Math.log(multiplier) / 0.2) ** 2));
/**
 * The prior's tails. Learned onsets come from the instances the controller caught, and those that never degrade are
 * hard to tell from those it ended early: a floor under "never", and a share of the onset prior spread over the whole
 * window, keep a long plateau explainable by something other than an overdue decline.
 */
const MIN_NEVER_SHARE = 0.1;
const UNIFORM_SHARE = 0.15;
/** Steps the instance's noise estimate looks at, and needs before it counts. */
const NOISE_WINDOW = 40;
const MIN_NOISE_STEPS = 5;
/** How far an instance's plateau may sit from the pooled peak (the GP's instance offset says the same). */
const LEVEL_SD = 0.1;

interface State {
  /** Index into the onset grid; -1 for "no onset in the window". */
  grid: number;
  /** kilotokens; Infinity for "no onset in the window" */
  onset: number;
  /** Index into DECLINE_MULTIPLIERS; -1 with no onset. */
  rate: number;
  decline: number;
  logPrior: number;
}

const noOnset = (probability: number): State => ({
  grid: -1,
  onset: Number.POSITIVE_INFINITY,
  rate: -1,
  decline: 0,
  logPrior: Math.log(probability),
});

/** The posterior's weights per state, and per onset of the grid: its probability and Σ weight × rate. */
interface PosteriorSummary {
  weights: Float64Array;
  /** The posterior mean of the instance's level. */
  plateau: number;
  onsetAt: Float64Array;
  declineAt: Float64Array;
}

export class OnsetPosterior {
  private readonly states: State[] = [];
  /** The grid's onsets (kilotokens) and, per onset, the sums of `OnsetEvidence`. */
  private readonly onsets: Float64Array;
  private readonly past: Float64Array;
  private readonly pastSquares: Float64Array;
  private readonly pastY: Float64Array;
  private noiseVariance: number;
  private failedTurnVariance: number;
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
  private summary: PosteriorSummary | undefined;
  /** log of the prior's onset share per grid onset (rates summed), and last of "no onset in the window". */
  private readonly onsetLogPrior = new Float64Array(ONSET_STATES + 1);

  /** `carried`: what the session's earlier instances observed (another posterior's `memory().evidence`); none: the prior alone. */
  constructor(
    private readonly prior: OnsetPrior,
    carried?: OnsetEvidence,
  ) {
    this.priorNoiseSd = Math.max(prior.noiseSd, 0.01);
    this.noiseVariance = this.priorNoiseSd ** 2;
    this.failedTurnVariance = this.noiseVariance;
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
      const share = (1 - never) * density;
      this.onsetLogPrior[grid] = Math.log(share);
      if (share / DECLINE_MULTIPLIERS.length <= 1e-12) return;
      DECLINE_MULTIPLIERS.forEach((multiplier, rate) => {
        const decline = prior.declineRatePerKiloToken * multiplier;
        const logPrior = Math.log(share * (RATE_WEIGHTS[rate] as number));
        this.states.push({ grid, onset: this.onsets[grid] as number, rate, decline, logPrior });
      });
    });
    this.states.push(noOnset(never));
    this.onsetLogPrior[ONSET_STATES] = Math.log(never);
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
   * One observation, weighed by its probability of not being a failed turn (`failedTurnProbability`) in sums of a weighted Gaussian: a
   * failed turn hardly moves the posterior, a turn within the noise counts whole (clipped at the prediction instead, a failed turn was a
   * turn of decline 1.5 noise sds deep). The third failed turn in a row is a cliff: whole.
   */
  add(kiloTokens: number, observed: number): void {
    this.learnNoise(observed);
    // The prediction's variance: the noise's and what the instance's level is still unsure of.
    const variance = this.failedTurnVariance + 1 / (1 / this.levelVariance + this.weight / this.noiseVariance);
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
    this.summary = undefined;
  }

  /** The posterior predictive mean quality at `kiloTokens`: the plateau less, per onset below it, its rates' expected decline. */
  mean(kiloTokens: number): number {
    const { plateau, declineAt } = this.posterior();
    let mean = plateau;
    for (let grid = 0; grid < ONSET_STATES; grid++) {
      const past = kiloTokens - (this.onsets[grid] as number);
      if (!(past > 0)) break;
      mean -= (declineAt[grid] as number) * past;
    }
    return mean;
  }

  /** The likelihood's noise (`instanceNoiseSd`) and the failed turns' scale (`stepNoiseSd`), from the steps between turns. */
  private learnNoise(observed: number): void {
    if (this.lastQuality !== undefined) {
      this.steps.push(Math.abs(observed - this.lastQuality));
      if (this.steps.length > NOISE_WINDOW) this.steps.shift();
    }
    this.lastQuality = observed;
    this.estimateNoise();
  }

  private estimateNoise(): void {
    this.failedTurnVariance = stepNoiseSd(this.steps, this.priorNoiseSd, MIN_NOISE_STEPS) ** 2;
    const sd = instanceNoiseSd(this.steps, this.priorNoiseSd, MIN_NOISE_STEPS);
    if (sd * sd !== this.noiseVariance) {
      this.noiseVariance = sd * sd;
      this.summary = undefined;
    }
  }

  /** The instance's plateau: the posterior mean of its level, before any decline. */
  plateau(): number {
    return this.posterior().plateau;
  }

  /** P(the onset lies before `kiloTokens` | what the instance saw). */
  probabilityDegradedBy(kiloTokens: number): number {
    const { onsetAt } = this.posterior();
    let probability = 0;
    for (let grid = 0; grid < ONSET_STATES && (this.onsets[grid] as number) < kiloTokens; grid++) probability += onsetAt[grid] as number;
    return probability;
  }

  /** P(the decline rate is each of the `DECLINE_MULTIPLIERS` times the prior's | an onset within the window). */
  declineRateWeights(): number[] {
    const { weights } = this.posterior();
    const byRate = DECLINE_MULTIPLIERS.map(() => 0);
    this.states.forEach((state, index) => {
      if (state.rate >= 0) byRate[state.rate] = (byRate[state.rate] as number) + (weights[index] as number);
    });
    const total = byRate.reduce((sum, weight) => sum + weight, 0);
    return byRate.map((weight) => (total > 0 ? weight / total : 1 / byRate.length));
  }

  /** The likelihood's sums (weighted, carried ones included) and the level's prior: what the profile's evidence reads too. */
  sums(): OnsetSums {
    const { count, weight, sumY, sumYSquares, past, pastY, pastSquares, levelMean, levelVariance } = this;
    return { count, weight, sumY, sumYSquares, past, pastY, pastSquares, levelMean, levelVariance };
  }

  /** The states' weights, and what the GP asks of them at every call summed once per onset. */
  private posterior(): PosteriorSummary {
    if (this.summary) return this.summary;
    const sums = this.sums();
    const logs = new Float64Array(this.states.length);
    for (let index = 0; index < logs.length; index++) {
      const state = this.states[index] as State;
      logs[index] = state.logPrior + onsetLogLikelihood(sums, state, this.noiseVariance);
    }
    const weights = normalised(logs);
    const onsetAt = new Float64Array(ONSET_STATES);
    const declineAt = new Float64Array(ONSET_STATES);
    let plateau = 0;
    for (let index = 0; index < weights.length; index++) {
      const state = this.states[index] as State;
      const weight = weights[index] as number;
      plateau += weight * levelGiven(sums, state, this.noiseVariance);
      if (state.grid < 0) continue;
      onsetAt[state.grid] = (onsetAt[state.grid] as number) + weight;
      declineAt[state.grid] = (declineAt[state.grid] as number) + weight * state.decline;
    }
    this.summary = { weights, plateau, onsetAt, declineAt };
    return this.summary;
  }

  private evidence(): PosteriorEvidence {
    const { noiseVariance, priorNoiseSd, onsetLogPrior } = this;
    const states = this.states.filter((state) => state.grid >= 0);
    return { sums: this.sums(), states, rateWeights: RATE_WEIGHTS, onsetLogPrior, noiseVariance, priorNoiseSd };
  }

  /** log p(observations | rate) per `DECLINE_LEVELS` entry, for the profile (`onset-profile-evidence.ts`). */
  declineLikelihoods(): number[] | undefined {
    return declineLikelihoods(this.evidence());
  }

  /** Where the observations alone put the onset, for the profile (`onset-profile-evidence.ts`). */
  evidenceOnset(level: number): LocatedOnset | { located: false } {
    return evidenceOnset(this.evidence(), level);
  }
}
