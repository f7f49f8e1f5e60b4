import { describe, expect, it } from "vitest";
import { mean, pairedDifference } from "../../scripts/lib/adaptive-users.mjs";

describe("bench-adaptive's paired comparison against the priors", () => {
  it("reads a learner that matched the priors on every episode as equal to them, not below", () => {
    // Satisfactions the evaluation gives; the learner's figure per episode is the mean of its three runs, as in the bench.
    const priors = [0.1, 0.7, -0.05, 0.33, 0.46, -0.57, 0.1, 0.7];
    const learner = priors.map((value) => mean([value, value, value]));
    // The rounding error the bench saw: the mean of three equal runs is not always the value.
    expect(learner.some((value, index) => value !== priors[index])).toBe(true);
    const versus = pairedDifference(learner, priors);
    expect(versus.mean).toBe(0);
    expect(versus.twoStandardErrors).toBe(0);
    expect(versus.mean < -versus.twoStandardErrors).toBe(false);
  });

  it("keeps a real difference and its standard error", () => {
    const priors = [0.5, 0.5, 0.5, 0.5];
    const learner = [0.48, 0.5, 0.5, 0.46];
    const versus = pairedDifference(learner, priors);
    expect(versus.mean).toBeCloseTo(-0.015, 12);
    // Twice the differences' standard deviation (n − 1) over √4.
    const sd = Math.sqrt((0.005 ** 2 + 2 * 0.015 ** 2 + 0.025 ** 2) / 3);
    expect(versus.twoStandardErrors).toBeCloseTo((2 * sd) / 2, 12);
  });
});
