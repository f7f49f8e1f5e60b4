import { fitChangepoint } from "./changepoint.js";
import { InducingPointGP } from "./gaussian-process.js";
import { type OnsetMemory, type OnsetPrior, OnsetPosterior } from "./onset-posterior.js";
import { type AgentHandoffProfile, type InstanceSummary, priorMeanOf } from "./handoff-profile.js";
import { SessionJoint } from "./session-joint.js";
import { DEFAULT_TRIGGERS, type TriggerConstants } from "./trigger-constants.js";

/**
 * One agent instance's degradation detector: observe() after each turn,
 * check() before each model call, summary() when the instance ends. The GP
 * starts from the profile's curve, so the lookahead past anything this
 * instance has seen falls back on what earlier sessions learned
 * (docs/DESIGN-NOTES.md, "Triggers").
 */

export type TriggerCondition = "below_peak" | "declining_trend" | "high_uncertainty" | "onset_reached";

export interface DegradationCheck {
  fire: boolean;
  condition?: TriggerCondition;
  contextTokens: number;
  lookaheadTokens: number;
  current: { mean: number; sd: number };
  lookahead: { mean: number; sd: number };
  peak: number;
  threshold: number;
}

export { DEFAULT_TRIGGERS, type TriggerConstants } from "./trigger-constants.js";

/** How many first observations give a prepared context's early quality (the arm's reward). */
const EARLY_TURNS = 3;
/**
 * An instance's plateau may sit this far (sd) from the pooled peak: its task
 * is easier or harder. The GP's offset term takes it, so its length scale is
 * left to the shape of the curve.
 */
const INSTANCE_OFFSET_SD = 0.1;
/**
 * Observations are winsorized to the prediction ± this many noise sds
 * before they enter the GP: one very bad turn (a tool failing for reasons of
 * its own) moves the curve by a bounded step, while a real drop, turn after
 * turn, still pulls it down (Huber's metric winsorizing).
 */
const WINSORIZE_SDS = 3;
/**
 * An instance a handoff started pays for the context it no longer has in its
 * first turns: their quality says what the handoff cost, not where the
 * session's onset lies, and they are kept out of the onset's evidence.
 */
const HANDOFF_WARM_UP_TURNS = 2;
/**
 * How sure the session's observations must be that its onset lies below
 * the largest size it reached before the profile takes their estimate:
 * more likely than not. A session caught a turn or two past its onset each
 * time rarely makes that certain, yet its estimate is within a turn or two
 * of the onset (test/handoff/onset-posterior.test.ts), and an estimate the
 * profile never gets is one more session leaning on the default.
 */
const SESSION_ONSET_LEVEL = 0.5;

export class DegradationDetector {
  private readonly gp: InducingPointGP;
  private readonly burnIn: number;
  private readonly preparedFraction: number | undefined;
  private readonly triggers: TriggerConstants;
  private readonly points: Array<{ tokens: number; quality: number }> = [];
  private growthCount = 0;
  private growthSum = 0;
  private fired = false;
  private readonly onset: OnsetPosterior | undefined;
  /** With the pair's learner (the profile's `pair`): the session's joint posterior, which every firing reads. */
  private readonly joint: SessionJoint | undefined;
  private readonly jointCarried: boolean;
  private readonly warmUpTurns: number;

  constructor(
    private readonly profile: AgentHandoffProfile,
    options: {
      burnIn?: number;
      preparedFraction?: number;
      triggers?: Partial<TriggerConstants>;
      /**
       * The GP's prior mean: the onset posterior's predictive mean (the
       * learned onset as a prior, conditioned on the instance's own data;
       * the default), the profile's plateau-then-decline as it is, or its
       * plateau alone (docs/BENCHMARKS.md compares them).
       */
      priorShape?: "learned-onset" | "plateau-then-decline" | "plateau";
      /**
       * The onset posterior of the session's previous instance of this type
       * and model (its `onsetMemory()`): this instance starts from that
       * posterior, not from the profile's prior, because its onset is the
       * same one. Only with the learned-onset prior.
       */
      carried?: OnsetMemory;
      /** The instance starts from a handoff: its first turns are kept out of the onset's evidence. */
      handedOff?: boolean;
    } = {},
  ) {
    const shape = options.priorShape ?? "learned-onset";
    if (shape === "learned-onset") {
      this.onset = options.carried
        ? new OnsetPosterior(options.carried.prior, options.carried.evidence)
        : new OnsetPosterior(onsetPriorOf(profile));
    }
    const pair = shape === "learned-onset" ? profile.pair : undefined;
    const session = options.carried?.session;
    this.joint = pair ? (session ? SessionJoint.resume(pair, session) : SessionJoint.start(pair)) : undefined;
    this.jointCarried = session !== undefined;
    this.warmUpTurns = options.handedOff ? HANDOFF_WARM_UP_TURNS : 0;
    const onset = this.onset;
    const priorMean = onset
      ? (kiloTokens: number) => onset.mean(kiloTokens)
      : shape === "plateau"
        ? () => profile.peakQuality
        : priorMeanOf(profile);
    this.gp = new InducingPointGP({ priorMean, offsetVariance: INSTANCE_OFFSET_SD ** 2 });
    this.burnIn = options.burnIn ?? 3;
    this.preparedFraction = options.preparedFraction;
    this.triggers = { ...DEFAULT_TRIGGERS, ...options.triggers };
  }

  get observationCount(): number {
    return this.points.length;
  }

  observe(contextTokens: number, quality: number): void {
    const previous = this.points.at(-1);
    // Only growth counts toward the lookahead: a shrink is an eviction, not a turn's cost.
    if (previous && contextTokens > previous.tokens) {
      this.growthCount++;
      this.growthSum += contextTokens - previous.tokens;
    }
    const kept = this.winsorized(contextTokens / 1000, quality);
    this.points.push({ tokens: contextTokens, quality: kept });
    // The onset posterior learns first, so the GP refits once against the prior mean it now predicts. It takes the turn
    // as observed: it weighs a failed turn by its own outlier model, and winsorized it would look like a turn of decline.
    if (this.points.length > this.warmUpTurns) {
      this.onset?.add(contextTokens / 1000, quality);
      this.joint?.add(contextTokens, quality);
    }
    this.gp.add(contextTokens / 1000, kept);
  }

  private winsorized(x: number, quality: number): number {
    const prediction = this.gp.predict(x);
    // The noise alone, not the predictive variance: early in an instance that variance is
    // large and would let the very turns that mislead a young GP through unclipped.
    const sd = Math.max(Math.sqrt(this.gp.hyperparameters.noiseVariance), this.profile.plateauNoise);
    return Math.min(prediction.mean + WINSORIZE_SDS * sd, Math.max(prediction.mean - WINSORIZE_SDS * sd, quality));
  }

  check(contextTokens: number): DegradationCheck {
    const growth = this.growthCount > 0 ? this.growthSum / this.growthCount : this.profile.expectedGrowthPerTurn;
    const lookaheadTokens = contextTokens + growth;
    const x = contextTokens / 1000;
    const xAhead = lookaheadTokens / 1000;
    const current = asSd(this.gp.predict(x));
    const lookahead = asSd(this.gp.predict(xAhead));
    const peak = this.peak();
    const threshold = this.profile.degradedFraction * peak;
    const check: DegradationCheck = { fire: false, contextTokens, lookaheadTokens, current, lookahead, peak, threshold };
    if (this.joint) return this.jointCheck(check);
    // Carried from the session's earlier instances, the onset's evidence counts toward the burn-in too.
    const carried = this.onset !== undefined && this.onset.carriedCount > 0;
    if (carried && this.onsetReachedSinceStart(x) >= this.triggers.onsetReached && (this.onset?.observationCount ?? 0) >= this.burnIn) {
      this.fired = true;
      return { ...check, fire: true, condition: "onset_reached" };
    }
    if (this.points.length < this.burnIn) return check;
    const gate = carried ? Math.max(this.triggers.onsetEvidence, this.triggers.onsetReached) : this.triggers.onsetEvidence;
    // A carried instance's gate is at x, as its onset_reached: at x' its curve fired the turn before an onset known to a turn.
    if (this.onset && this.onset.probabilityDegradedBy(carried ? x : xAhead) < gate) return check;
    const condition = this.condition(x, lookaheadTokens, lookahead, peak, threshold);
    if (!condition) return check;
    this.fired = true;
    return { ...check, fire: true, condition };
  }

  /**
   * The pair's learner: the posterior predictive P(onset ≤ the current size) at the first level from the burn-in on,
   * or at the carried level from a carried instance's first check. The GP's conditions are not asked.
   */
  private jointCheck(check: DegradationCheck): DegradationCheck {
    const level = this.jointCarried ? this.triggers.onsetReached : this.triggers.onsetEvidence;
    if (!this.jointCarried && this.points.length < this.burnIn) return check;
    if ((this.joint as SessionJoint).probabilityDegradedBy(check.contextTokens) < level) return check;
    this.fired = true;
    return { ...check, fire: true, condition: "onset_reached" };
  }

  /** P(the onset lies between the instance's first size and `kiloTokens`). */
  private onsetReachedSinceStart(kiloTokens: number): number {
    if (!this.onset) return 0;
    const start = (this.points[0]?.tokens ?? 0) / 1000;
    return this.onset.probabilityDegradedBy(kiloTokens) - this.onset.probabilityDegradedBy(start);
  }

  /** The onset posterior as the session's next instance starts from it; undefined without the learned-onset prior. */
  onsetMemory(): OnsetMemory | undefined {
    const memory = this.onset?.memory();
    return memory && this.joint ? { ...memory, session: this.joint.memory() } : memory;
  }

  /**
   * The changepoint fit of what this instance saw. An instance that declined
   * significantly gives its onset. One that did not is censored (its onset
   * lies beyond its largest size) only if it ended without a firing: an
   * instance the detector ended saw the start of a decline too short to test,
   * and calling it censored would pull the learned onset up past where
   * instances are caught. Its onset is then simply unknown.
   */
  summary(): InstanceSummary {
    const fit = fitChangepoint(this.points);
    const summary: InstanceSummary = {
      observations: this.points.length,
      maxTokens: fit.maxTokens,
      peakQuality: fit.plateau,
      declineRatePerKiloToken: fit.declineRatePerKiloToken,
      plateauNoise: fit.plateauNoise,
    };
    if (fit.onsetTokens !== undefined) summary.onsetTokens = fit.onsetTokens;
    else if (this.fired) summary.onsetUnknown = true;
    if (this.growthCount > 0) summary.growthPerTurn = { count: this.growthCount, sum: this.growthSum };
    if (this.preparedFraction !== undefined && this.points.length > 0) {
      const early = this.points.slice(0, EARLY_TURNS);
      summary.preparedFraction = this.preparedFraction;
      summary.earlyQuality = early.reduce((total, point) => total + point.quality, 0) / early.length;
    }
    return summary;
  }

  /**
   * The summary of an instance that hands off to another of the session's:
   * its onset is left out (neither located nor censored), because the
   * instance that ends the session reports the session's onset from
   * everything the chain observed (`sessionSummary`). An instance caught a
   * turn or two past the onset it was told of has too short a decline for
   * its own fit, and most would add nothing.
   */
  handedOffSummary(): InstanceSummary {
    if (!this.onset) return { ...this.summary(), handedOff: true };
    return { ...withoutOnset(this.summary()), onsetUnknown: true, handedOff: true };
  }

  /**
   * The summary of the session's last instance: the session's onset, once,
   * from the carried observations by their likelihood alone
   * (`OnsetPosterior.evidenceOnset`); censored at its largest size if the
   * session never fired and the evidence places no onset; unknown if it
   * fired and still places none. Without the learned-onset prior, the
   * instance's own changepoint fit (`summary`).
   */
  sessionSummary(): InstanceSummary {
    const turns = this.joint?.sessionTurns();
    const summary = { ...this.summary(), ...(turns ? { sessionTurns: turns } : {}) };
    if (!this.onset) return summary;
    const rest = withoutOnset(summary);
    const estimate = this.onset.evidenceOnset(SESSION_ONSET_LEVEL);
    if (estimate.located) {
      const declineLogLikelihoods = this.onset.declineLikelihoods();
      return {
        ...rest,
        onsetTokens: estimate.onsetTokens,
        onsetErrorSdTokens: estimate.errorSdTokens,
        declineRatePerKiloToken: estimate.declineRatePerKiloToken,
        ...(declineLogLikelihoods ? { declineLogLikelihoods } : {}),
      };
    }
    const firedInSession = this.fired || this.onset.carriedCount > 0;
    return firedInSession ? { ...rest, onsetUnknown: true } : rest;
  }

  private condition(
    x: number,
    lookaheadTokens: number,
    lookahead: { mean: number; sd: number },
    peak: number,
    threshold: number,
  ): TriggerCondition | undefined {
    const t = this.triggers;
    if (lookahead.mean + t.belowPeakSds * lookahead.sd < threshold) return "below_peak";
    if (this.decliningTrend(x, peak - threshold)) return "declining_trend";
    if (
      lookahead.sd > t.uncertaintySd &&
      lookaheadTokens > t.uncertaintyOnsetShare * this.profile.onsetTokens &&
      lookahead.mean - t.uncertaintyLowerSds * lookahead.sd < threshold
    ) {
      return "high_uncertainty";
    }
    return undefined;
  }

  /** (b): the posterior mean fell over the last length scale by more than half the degraded margin, significantly. */
  private decliningTrend(x: number, margin: number): boolean {
    const smallest = this.gp.inducingPoints[0]?.kiloTokens ?? x;
    // Never reach back before the instance's first observation: there the GP is only the prior.
    const from = Math.max(x - this.gp.hyperparameters.lengthScale, smallest);
    if (!(from < x)) return false;
    const joint = this.gp.predictJoint(from, x);
    const drop = joint.a.mean - joint.b.mean;
    const sdOfDrop = Math.sqrt(Math.max(joint.a.variance + joint.b.variance - 2 * joint.covariance, 0));
    return drop > this.triggers.trendMarginShare * margin && drop > this.triggers.trendSds * sdOfDrop;
  }

  /**
   * The instance's peak: its plateau by the onset posterior; without one,
   * the highest posterior mean at the sizes it has observed (the profile's
   * before any). The highest of noisy means sits above the plateau, and a
   * line drawn from it finds declines in noise.
   */
  private peak(): number {
    if (this.onset) return this.onset.observationCount > 0 ? this.onset.plateau() : this.profile.peakQuality;
    const sizes = this.gp.inducingPoints;
    if (sizes.length === 0) return this.profile.peakQuality;
    let peak = Number.NEGATIVE_INFINITY;
    for (const { kiloTokens } of sizes) peak = Math.max(peak, this.gp.predictMean(kiloTokens));
    return peak;
  }
}

/** The summary with its own onset (located or unknown) taken out. */
function withoutOnset(summary: InstanceSummary): InstanceSummary {
  const rest = { ...summary };
  delete rest.onsetTokens;
  delete rest.onsetErrorSdTokens;
  delete rest.onsetUnknown;
  return rest;
}

const asSd = (prediction: { mean: number; variance: number }) => ({ mean: prediction.mean, sd: Math.sqrt(prediction.variance) });

/** The onset posterior's prior from a profile: what earlier sessions learned of this (type, model). */
export function onsetPriorOf(profile: AgentHandoffProfile): OnsetPrior {
  return {
    onsetTokens: profile.onsetTokens,
    onsetSdTokens: profile.onsetSdTokens,
    neverShare: profile.neverDegradesShare,
    peakQuality: profile.peakQuality,
    declineRatePerKiloToken: profile.declineRatePerKiloToken,
    noiseSd: profile.plateauNoise,
    windowTokens: profile.windowTokens,
  };
}
