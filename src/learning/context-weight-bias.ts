import type { EpisodeObservation, RewardWeights } from "./satisfaction.js";

export interface ContextWeightBiasJSON {
  relevanceMult: number;
  struggleMult: number;
  wasteMult: number;
  observationCount: number;
}

const LEARNING_RATE = 0.05;
const MIN_MULT = 0.5;
const MAX_MULT = 2;

const clampMult = (value: number) => Math.min(MAX_MULT, Math.max(MIN_MULT, value));

/**
 * Multipliers a discovered context learns on top of the global weights. Task success is never adjusted: completing the task
 * matters the same everywhere.
 */
export class ContextWeightBias {
  relevanceMult = 1;
  struggleMult = 1;
  wasteMult = 1;
  observationCount = 0;

  adjust(base: RewardWeights): RewardWeights {
    return {
      taskSuccess: base.taskSuccess,
      relevanceBonus: base.relevanceBonus * this.relevanceMult,
      strugglePenalty: base.strugglePenalty * this.struggleMult,
      wastePenalty: base.wastePenalty * this.wasteMult,
    };
  }

  /**
   * A bad outcome with many searches after the prefetch says this context
   * needs more prefetch, and one with much unused prefetch says it gets too
   * much noise. With only those two rules the multipliers only ever grew (bench-adaptive: to their cap in every run); here a good
   * outcome despite the same signs brings them back down by the same step.
   */
  update(satisfaction: number, observation: Pick<EpisodeObservation, "searchedAfter" | "prefetchedKeys" | "usedKeys">): void {
    this.observationCount++;
    const step = satisfaction <= 0 ? LEARNING_RATE : -LEARNING_RATE;
    if (observation.searchedAfter.length > 2) this.struggleMult += step;
    if (observation.prefetchedKeys.length > observation.usedKeys.length + 3) this.wasteMult += step;
    this.relevanceMult = clampMult(this.relevanceMult);
    this.struggleMult = clampMult(this.struggleMult);
    this.wasteMult = clampMult(this.wasteMult);
  }

  toJSON(): ContextWeightBiasJSON {
    return {
      relevanceMult: this.relevanceMult,
      struggleMult: this.struggleMult,
      wasteMult: this.wasteMult,
      observationCount: this.observationCount,
    };
  }

  static fromJSON(data: unknown): ContextWeightBias {
    const record = (data ?? {}) as Partial<Record<keyof ContextWeightBiasJSON, unknown>>;
    const bias = new ContextWeightBias();
    for (const name of ["relevanceMult", "struggleMult", "wasteMult"] as const) {
      const value = record[name];
      if (typeof value !== "number" || !(value >= MIN_MULT && value <= MAX_MULT)) {
        throw new RangeError(`ContextWeightBias.${name} must be a number in [${MIN_MULT}, ${MAX_MULT}], got ${JSON.stringify(value)}`);
      }
      bias[name] = value;
    }
    const count = record.observationCount;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
      throw new RangeError(`ContextWeightBias.observationCount must be a non-negative integer, got ${JSON.stringify(count)}`);
    }
    bias.observationCount = count;
    return bias;
  }
}
