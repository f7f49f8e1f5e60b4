import { betaSample, type Uniform } from "../stats/random-draws.js";

/** How a belief learns: decay, outlier rejection, cold start, drift, and a cap on its evidence. */
export interface UpdateConfig {
  /** Recent observations matter more: old evidence shrinks by this per update. */
  decayFactor: number;
  /** Samples further than this many standard deviations from the mean are rejected. */
  outlierThreshold: number;
  /** Below this much evidence, updates are shrunk toward the prior (cold start). */
  minEffectiveSamples: number;
  /** Each update pulls this fraction of the way back to the prior (non-stationarity). */
  driftRate: number;
  /** Past this alpha + beta both are scaled down together, so the belief never freezes. */
  maxEffectiveSamples: number;
  /**
   * Where a negative signal puts its evidence. "reflect" (the default): at
   * the sample reflected about the current mean, 2·mean − x, clamped to
   * [0, 1]. "mirror" (the original rule): at 1 − x. The mirror pulls every belief toward
   * 0.5 whenever signals are negative about as often as positive (the
   * advantage rule), whatever the outcome says; the reflection moves the mean
   * only as far as the signal and the sample go together.
   */
  negativeEvidence?: "mirror" | "reflect";
}

export const DEFAULT_UPDATE_CONFIG: Readonly<UpdateConfig> = Object.freeze({
  decayFactor: 0.999,
  outlierThreshold: 3.0,
  minEffectiveSamples: 10,
  driftRate: 0.001,
  maxEffectiveSamples: 200,
});

/** Plain data for persistence: sufficient statistics only. */
export interface RobustWeightDistributionJSON {
  alpha: number;
  beta: number;
  priorAlpha: number;
  priorBeta: number;
  effectiveSamples: number;
}

/** Why an update did or did not change the belief. */
export type UpdateOutcome = "applied" | "outlier" | "invalid";

/**
 * A Beta belief over a value in [0, 1] that survives outliers (z-score
 * rejection), non-stationarity (decay and drift to the prior) and cold
 * start (shrinkage until enough evidence).
 */
export class RobustWeightDistribution {
  alpha: number;
  beta: number;
  effectiveSamples: number;
  readonly priorAlpha: number;
  readonly priorBeta: number;

  constructor(priorAlpha: number, priorBeta: number) {
    if (!(priorAlpha > 0 && priorBeta > 0 && Number.isFinite(priorAlpha) && Number.isFinite(priorBeta))) {
      throw new RangeError(`a Beta prior needs positive finite alpha and beta, got (${priorAlpha}, ${priorBeta})`);
    }
    this.alpha = priorAlpha;
    this.beta = priorBeta;
    this.priorAlpha = priorAlpha;
    this.priorBeta = priorBeta;
    this.effectiveSamples = 0;
  }

  mean(): number {
    return this.alpha / (this.alpha + this.beta);
  }

  variance(): number {
    const sum = this.alpha + this.beta;
    return (this.alpha * this.beta) / (sum * sum * (sum + 1));
  }

  /** One Thompson draw. */
  sample(random: Uniform): number {
    return betaSample(this.alpha, this.beta, random);
  }

  /**
   * Moves toward `observation` (a value that was sampled and used) when `signal` > 0, away from it when `signal` < 0, with weight
   * |signal|. The signal is the satisfaction or its advantage over a
   * baseline (`UpdateRule`); this method does not care which.
   */
  update(observation: number, signal: number, config: Readonly<UpdateConfig> = DEFAULT_UPDATE_CONFIG): UpdateOutcome {
    if (!Number.isFinite(observation) || !Number.isFinite(signal)) return "invalid";
    // A sample adjusted outside [0, 1] would make alpha or beta shrink below zero.
    const x = Math.min(1, Math.max(0, observation));

    // 1. Outlier rejection against the current belief.
    const stddev = Math.sqrt(this.variance());
    if (stddev > 0 && Math.abs(x - this.mean()) / stddev > config.outlierThreshold) return "outlier";

    // 2. Exponential decay of existing evidence.
    this.alpha *= config.decayFactor;
    this.beta *= config.decayFactor;
    this.effectiveSamples *= config.decayFactor;

    // 3. The new evidence: toward x for a positive signal, away from it for a negative one.
    const weight = Math.abs(signal);
    const away = config.negativeEvidence === "mirror" ? 1 - x : Math.min(1, Math.max(0, 2 * this.mean() - x));
    const toward = signal > 0 ? x : away;
    this.alpha += weight * toward;
    this.beta += weight * (1 - toward);
    this.effectiveSamples += weight;

    // 4. Cold-start protection: with little evidence, keep only a fraction of the move off the prior.
    if (this.effectiveSamples < config.minEffectiveSamples) {
      const keep = Math.max(0, this.effectiveSamples) / config.minEffectiveSamples;
      this.alpha = this.priorAlpha + (this.alpha - this.priorAlpha) * keep;
      this.beta = this.priorBeta + (this.beta - this.priorBeta) * keep;
    }

    // 5. Drift back toward the prior.
    this.alpha = this.alpha * (1 - config.driftRate) + this.priorAlpha * config.driftRate;
    this.beta = this.beta * (1 - config.driftRate) + this.priorBeta * config.driftRate;

    // 6. The cap: same mean, bounded confidence, so a later change of preference can still be learned.
    const total = this.alpha + this.beta;
    if (total > config.maxEffectiveSamples) {
      const scale = config.maxEffectiveSamples / total;
      this.alpha *= scale;
      this.beta *= scale;
      this.effectiveSamples *= scale;
    }
    return "applied";
  }

  toJSON(): RobustWeightDistributionJSON {
    return {
      alpha: this.alpha,
      beta: this.beta,
      priorAlpha: this.priorAlpha,
      priorBeta: this.priorBeta,
      effectiveSamples: this.effectiveSamples,
    };
  }

  /** Throws on anything that is not a usable Beta: persisted state can be damaged. */
  static fromJSON(data: unknown): RobustWeightDistribution {
    const record = (data ?? {}) as Partial<Record<keyof RobustWeightDistributionJSON, unknown>>;
    const field = (name: keyof RobustWeightDistributionJSON, positive: boolean): number => {
      const value = record[name];
      if (typeof value !== "number" || !Number.isFinite(value) || (positive ? value <= 0 : value < 0)) {
        throw new RangeError(
          `RobustWeightDistribution.${name} must be a ${positive ? "positive" : "non-negative"} finite number, got ${JSON.stringify(value)}`,
        );
      }
      return value;
    };
    const distribution = new RobustWeightDistribution(field("priorAlpha", true), field("priorBeta", true));
    distribution.alpha = field("alpha", true);
    distribution.beta = field("beta", true);
    distribution.effectiveSamples = field("effectiveSamples", false);
    return distribution;
  }
}
