import { describe, expect, it } from "vitest";
import {
  answerBearing,
  answerWords,
  contentWords,
  contextTokens,
  everyKthWithin,
  holdsAny,
  normalise,
  randomWithin,
  recentWithin,
} from "../../scripts/lib/memory-coverage.mjs";
import { KEYWORD_STOP_WORDS } from "../../src/knowledge/extract-keywords.js";
import { estimateTokens } from "../../src/tokens/estimate-tokens.js";

const STOP = KEYWORD_STOP_WORDS;
const tokensOf = (units: readonly string[]) => units.reduce((sum, unit) => sum + estimateTokens(unit) + 1, 0);

describe("content words", () => {
  it("are lower-cased runs of letters and digits, less stop words, clitics and single letters", () => {
    expect([...contentWords("Caroline's friend didn't go to the LGBTQ group on 7 May 2023, a Sunday.", STOP)]).toEqual([
      "caroline",
      "friend",
      "go",
      "lgbtq",
      "group",
      "7",
      // "may" is one of the keyword stop words (the modal verb); the month goes with it.
      "2023",
      "sunday",
    ]);
  });

  it("read typographic apostrophes and Unicode forms as plain ones", () => {
    expect([...contentWords("Melanie\u2019s ｐｏｔｔｅｒｙ class", STOP)]).toEqual(["melanie", "pottery", "class"]);
  });
});

describe("answer-bearing sentences", () => {
  const speakers = ["Caroline", "Melanie"];

  it("are the evidence sentences holding a content word of the answer, the speakers' names aside", () => {
    const sentences = ["Caroline: I went to a LGBTQ support group yesterday.", "It was so powerful and I felt accepted."];
    expect(answerBearing(sentences, answerWords("The support group", speakers, STOP), STOP)).toEqual([sentences[0]]);
    // "Caroline" is a speaker: the first sentence names her, but that bears no answer.
    expect(answerBearing(sentences, answerWords("Caroline", speakers, STOP), STOP)).toEqual([]);
    // An answer of stop words alone has no answer words, so nothing bears it.
    expect(answerBearing(sentences, answerWords("She did", speakers, STOP), STOP)).toEqual([]);
    // A number in the answer is a word.
    expect(answerBearing(["We moved here in 2019, right after college."], answerWords(2019, speakers, STOP), STOP)).toHaveLength(1);
  });

  it("count when a context holds one of them, case and white space aside, and not when it holds only part of one", () => {
    const bearing = ["Caroline: I went to a LGBTQ support group yesterday."];
    expect(holdsAny(normalise("- User: caroline:  I went to a lgbtq\nsupport group yesterday. More."), bearing)).toBe(true);
    expect(holdsAny(normalise("- User: I went to a LGBTQ support group"), bearing)).toBe(false);
    expect(holdsAny(normalise("anything"), [])).toBe(false);
  });
});

describe("the trivial baselines", () => {
  const units = Array.from({ length: 200 }, (_, index) => `Sentence ${index} of the conversation, ${"x".repeat(index % 37)}.`);

  it("count a context's tokens line by line, one more for each line break", () => {
    expect(contextTokens("", estimateTokens)).toBe(0);
    expect(contextTokens("abcd\nabcde", estimateTokens)).toBe(1 + 1 + 2 + 1);
  });

  for (const budget of [50, 333, 1_000, 2_500]) {
    it(`fill ${budget} tokens without passing them, the same way the memory is counted`, () => {
      for (const chosen of [
        recentWithin(units, budget, estimateTokens),
        everyKthWithin(units, budget, estimateTokens),
        randomWithin(units, budget, estimateTokens, 1),
        randomWithin(units, budget, estimateTokens, 2),
      ]) {
        const tokens = tokensOf(chosen);
        expect(tokens).toBeLessThanOrEqual(budget);
        // Within one unit of the budget: the largest unit costs 20 tokens.
        expect(tokens).toBeGreaterThan(budget - 21);
        expect(contextTokens(chosen.join("\n"), estimateTokens)).toBe(tokens);
      }
    });
  }

  it("take the newest units, every k-th across the whole conversation, and a seeded random draw, each in order", () => {
    const recent = recentWithin(units, 500, estimateTokens);
    expect(recent.at(-1)).toBe(units.at(-1));
    expect(units.slice(units.length - recent.length)).toEqual(recent);

    const spread = everyKthWithin(units, 1_000, estimateTokens).map((unit) => units.indexOf(unit));
    expect(spread[0]).toBeLessThan(10);
    expect(spread.at(-1)).toBeGreaterThan(190);
    expect([...spread].sort((a, b) => a - b)).toEqual(spread);

    const drawn = randomWithin(units, 1_000, estimateTokens, 7);
    expect(randomWithin(units, 1_000, estimateTokens, 7)).toEqual(drawn);
    expect(randomWithin(units, 1_000, estimateTokens, 8)).not.toEqual(drawn);
    const positions = drawn.map((unit) => units.indexOf(unit));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it("take everything when everything fits", () => {
    const few = units.slice(0, 5);
    expect(everyKthWithin(few, 10_000, estimateTokens)).toEqual(few);
    expect(randomWithin(few, 10_000, estimateTokens, 3)).toEqual(few);
    expect(recentWithin(few, 10_000, estimateTokens)).toEqual(few);
  });
});
