import { describe, expect, it } from "vitest";
import { contentWordsOf, mostSalientWithin, salienceOf } from "../../src/knowledge/salience.js";
import { estimateTokens } from "../../src/tokens/estimate-tokens.js";

describe("salience", () => {
  it("counts content words: lower case, stop words, clitics and single letters out, numbers in", () => {
    expect([...contentWordsOf("Melanie's retry limit is 3 in src/billing/retry.ts, isn't it?")]).toEqual([
      "melanie",
      "retry",
      "limit",
      "3",
      "src",
      "billing",
      "ts",
    ]);
  });

  it("is the summed log inverse sentence frequency over the square root of the tokens: a word every sentence says tells nothing", () => {
    const sentences = ["alpha beta", "alpha gamma", "alpha"];
    const [first, second, third] = salienceOf(sentences);
    // alpha is in all three sentences: log(4/3) each; beta and gamma once: log(4/1).
    expect(first).toBeCloseTo((Math.log(4 / 3) + Math.log(4)) / Math.sqrt(estimateTokens("alpha beta") + 1), 10);
    expect(second).toBeCloseTo(first ?? 0, 10);
    expect(third).toBeCloseTo(Math.log(4 / 3) / Math.sqrt(estimateTokens("alpha") + 1), 10);
  });

  it("keeps the most salient lines that fit, in their order, and skips one too long for what is left", () => {
    const lines = ["aaaa", "bbbbbbbbbbbbbbbbbbbb", "cccc", "dddd"];
    // Costs 2, 6, 2, 2 tokens (one more each for its line break); salience ranks b, d, a, c.
    expect(mostSalientWithin(lines, [2, 4, 1, 3], 10)).toEqual([0, 1, 3]);
    expect(mostSalientWithin(lines, [2, 4, 1, 3], 7)).toEqual([1]);
    expect(mostSalientWithin(lines, [2, 4, 1, 3], 5)).toEqual([0, 3]);
    expect(mostSalientWithin(lines, [1, 1, 1, 1], 4)).toEqual([0, 2]);
    expect(mostSalientWithin(lines, [2, 4, 1, 3], 1)).toEqual([]);
  });
});
