import type { EpisodeObservation, RewardWeights } from "./satisfaction.js";

/** Below this many episodes the profile knows too little to adjust anything. */
export const MIN_PROFILE_OBSERVATIONS = 5;

export interface UserWeightProfileJSON {
  prefersThorough: number;
  toleratesSearches: number;
  wastePenaltyMult: number;
  strugglePenaltyMult: number;
  observationCount: number;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * The one user's preferences, learned from behaviour. It belongs to the
 * user, not to a project.
 */
export class UserWeightProfile {
  /** −1 wants concise, +1 wants thorough. */
  prefersThorough = 0;
  /** −1 hates the model searching, +1 is fine with it. */
  toleratesSearches = 0;
  /** Lower for users who do well despite verbose prefetch. */
  wastePenaltyMult = 1;
  /** Higher for users who fail when the model has to search. */
  strugglePenaltyMult = 1;
  observationCount = 0;

  /** Task success and relevance are never adjusted. */
  adjust(base: RewardWeights): RewardWeights {
    if (this.observationCount < MIN_PROFILE_OBSERVATIONS) return base;
    return {
      taskSuccess: base.taskSuccess,
      relevanceBonus: base.relevanceBonus,
      strugglePenalty: base.strugglePenalty * this.strugglePenaltyMult,
      wastePenalty: base.wastePenalty * this.wastePenaltyMult,
    };
  }

  /** Learns from one episode: success or failure with much unused prefetch, or with many searches after it. */
  update(satisfaction: number, observation: Pick<EpisodeObservation, "searchedAfter" | "prefetchedKeys" | "usedKeys">): void {
    this.observationCount++;
    if (satisfaction > 0 && observation.prefetchedKeys.length > observation.usedKeys.length + 2) {
      // Success despite much unused prefetch: this user tolerates verbosity.
      this.prefersThorough += 0.1;
      this.wastePenaltyMult *= 0.95;
    }
    if (satisfaction < 0 && observation.prefetchedKeys.length > observation.usedKeys.length + 2) {
      // Failure with much unused prefetch (the other half: without it the multipliers only moved one way).
      this.prefersThorough -= 0.1;
      this.wastePenaltyMult *= 1.05;
    }
    if (satisfaction < 0 && observation.searchedAfter.length > 2) {
      // Failure with many searches: this user dislikes the model searching.
      this.toleratesSearches -= 0.1;
      this.strugglePenaltyMult *= 1.05;
    }
    if (satisfaction > 0 && observation.searchedAfter.length > 2) {
      // Success despite many searches: this user does not mind them.
      this.toleratesSearches += 0.1;
      this.strugglePenaltyMult *= 0.95;
    }
    this.prefersThorough = clamp(this.prefersThorough, -1, 1);
    this.toleratesSearches = clamp(this.toleratesSearches, -1, 1);
    this.wastePenaltyMult = clamp(this.wastePenaltyMult, 0.5, 2);
    this.strugglePenaltyMult = clamp(this.strugglePenaltyMult, 0.5, 2);
  }

  toJSON(): UserWeightProfileJSON {
    return {
      prefersThorough: this.prefersThorough,
      toleratesSearches: this.toleratesSearches,
      wastePenaltyMult: this.wastePenaltyMult,
      strugglePenaltyMult: this.strugglePenaltyMult,
      observationCount: this.observationCount,
    };
  }

  /** Throws a RangeError naming the damaged field. */
  static fromJSON(data: unknown): UserWeightProfile {
    const record = (data ?? {}) as Partial<Record<keyof UserWeightProfileJSON, unknown>>;
    const profile = new UserWeightProfile();
    const ranges = {
      prefersThorough: [-1, 1],
      toleratesSearches: [-1, 1],
      wastePenaltyMult: [0.5, 2],
      strugglePenaltyMult: [0.5, 2],
    } as const;
    for (const [name, [min, max]] of Object.entries(ranges) as [keyof typeof ranges, readonly [number, number]][]) {
      const value = record[name];
      if (typeof value !== "number" || !(value >= min && value <= max)) {
        throw new RangeError(`UserWeightProfile.${name} must be a number in [${min}, ${max}], got ${JSON.stringify(value)}`);
      }
      profile[name] = value;
    }
    const count = record.observationCount;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
      throw new RangeError(`UserWeightProfile.observationCount must be a non-negative integer, got ${JSON.stringify(count)}`);
    }
    profile.observationCount = count;
    return profile;
  }
}
