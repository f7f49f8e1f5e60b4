import { describe, expect, it } from "vitest";
import { UserWeightProfile } from "../../src/learning/user-weight-profile.js";

const weights = { taskSuccess: 0.8, relevanceBonus: 0.3, strugglePenalty: 0.4, wastePenalty: 0.1 };
const verbose = { searchedAfter: [], prefetchedKeys: ["a", "b", "c", "d"], usedKeys: ["a"] };
const starved = { searchedAfter: ["x", "y", "z"], prefetchedKeys: [], usedKeys: [] };

describe("UserWeightProfile", () => {
  it("adjusts nothing before 5 observations, then only the two penalties", () => {
    const profile = UserWeightProfile.fromJSON({
      prefersThorough: 0,
      toleratesSearches: 0,
      wastePenaltyMult: 0.5,
      strugglePenaltyMult: 2,
      observationCount: 4,
    });
    expect(profile.adjust(weights)).toEqual(weights);
    profile.observationCount = 5;
    expect(profile.adjust(weights)).toEqual({ taskSuccess: 0.8, relevanceBonus: 0.3, strugglePenalty: 0.8, wastePenalty: 0.05 });
  });

  it("learns from behaviour: success despite unused prefetch means tolerance of verbosity; failure with searches means aversion to them", () => {
    const profile = new UserWeightProfile();
    profile.update(0.3, verbose);
    expect(profile.prefersThorough).toBeCloseTo(0.1, 12);
    expect(profile.wastePenaltyMult).toBeCloseTo(0.95, 12);
    profile.update(-0.3, starved);
    expect(profile.toleratesSearches).toBeCloseTo(-0.1, 12);
    expect(profile.strugglePenaltyMult).toBeCloseTo(1.05, 12);
    // The other halves, so the multipliers can come back: failure despite unused prefetch, success despite searches.
    profile.update(-0.3, verbose);
    profile.update(0.3, starved);
    expect(profile.toJSON()).toEqual({
      prefersThorough: expect.closeTo(0, 12),
      toleratesSearches: expect.closeTo(0, 12),
      wastePenaltyMult: expect.closeTo(0.9975, 12),
      strugglePenaltyMult: expect.closeTo(0.9975, 12),
      observationCount: 4,
    });
  });

  it("clamps the preferences to [−1, 1] and the multipliers to [0.5, 2], and refuses damaged data", () => {
    const profile = new UserWeightProfile();
    for (let i = 0; i < 100; i++) {
      profile.update(1, verbose);
      profile.update(-1, starved);
    }
    expect(profile.toJSON()).toEqual({
      prefersThorough: 1,
      toleratesSearches: -1,
      wastePenaltyMult: 0.5,
      strugglePenaltyMult: 2,
      observationCount: 200,
    });
    expect(UserWeightProfile.fromJSON(JSON.parse(JSON.stringify(profile))).toJSON()).toEqual(profile.toJSON());
    expect(() => UserWeightProfile.fromJSON({ ...profile.toJSON(), prefersThorough: 2 })).toThrow(/prefersThorough/);
    expect(() => UserWeightProfile.fromJSON({ ...profile.toJSON(), observationCount: 1.5 })).toThrow(/observationCount/);
  });
});
