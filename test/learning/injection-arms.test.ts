import { describe, expect, it } from "vitest";
import type { ScoredCandidate } from "../../src/context/prefetch/injection-selection.js";
import { favouredArm, INJECTION_GAIN_PRIOR, type InjectionArm, InjectionArms } from "../../src/learning/injection-arms.js";
import { type EpisodeObservation, PRIOR_MEAN_WEIGHTS } from "../../src/learning/satisfaction.js";
import { mulberry32 } from "../helpers/random-vectors.js";

/** Two candidates that go in as hints at the prior thresholds (10 tokens each; excerpts would not fit the budget). */
const candidates: ScoredCandidate[] = [
  { key: "a", path: "a.ts", confidence: 0.95, excerptTokens: 10_000, summaryTokens: 10 },
  { key: "b", path: "b.ts", confidence: 0.9, excerptTokens: 10_000, summaryTokens: 10 },
];

/**
 * One episode over those candidates. `arm` says what ran: with "inject" (or
 * "hints") both went in and `used` of them were used; `needed` is what the run needed
 * (read or cited, injected or not), and each needed item that was not
 * injected cost the run a search.
 */
function episode(sequence: number, arm: InjectionArm, needed: string[], outcome: Partial<EpisodeObservation> = {}): EpisodeObservation {
  const injected = arm === "nothing" ? [] : ["a", "b"];
  return {
    sequence,
    timestamp: sequence,
    contextId: "ctx_0",
    query: "q",
    queryEmbedding: [1],
    sampledWeights: PRIOR_MEAN_WEIGHTS,
    appliedWeights: PRIOR_MEAN_WEIGHTS,
    sampledThresholds: { confidence: 0.85, excerpt: 0.9, budget: 0.1 },
    injectionArm: arm,
    taskCompleted: true,
    followUps: 0,
    corrections: 0,
    toolCalls: 1,
    userEdits: 0,
    hedging: false,
    prefetchedKeys: injected,
    usedKeys: injected.filter((key) => needed.includes(key)),
    searchedAfter: arm === "nothing" ? needed.map((key) => `search for ${key}`) : [],
    prefetchRounds: [{ candidates, remainingTokens: 100_000, penalty: 1, neededKeys: needed }],
    budgetRatio: 0.1,
    ...outcome,
  };
}

/**
 * An episode whose one candidate, `key`, goes in as an excerpt when injecting (as a hint with hints only); the
 * run needed it if it used it, or if `neededKeys` says so (found by its own search).
 */
function excerptEpisode(
  sequence: number,
  arm: InjectionArm,
  key: string,
  outcome: Partial<EpisodeObservation> & { neededKeys?: string[] },
): EpisodeObservation {
  const { neededKeys, ...fields } = outcome;
  const candidate: ScoredCandidate = { key, path: `${key}.ts`, confidence: 0.95, excerptTokens: 100, summaryTokens: 10 };
  return episode(sequence, arm, [], {
    prefetchedKeys: arm === "nothing" ? [] : [key],
    usedKeys: [],
    searchedAfter: [],
    prefetchRounds: [{ candidates: [candidate], remainingTokens: 100_000, penalty: 1, neededKeys: neededKeys ?? fields.usedKeys ?? [] }],
    ...fields,
  });
}

/** How often, of 1,000 draws, the arms choose `arm` (by default, to inject nothing). */
function nothingShare(arms: InjectionArms, seed = 1, arm: InjectionArm = "nothing"): number {
  const random = mulberry32(seed);
  let chosen = 0;
  for (let draw = 0; draw < 1000; draw++) if (arms.choose(random) === arm) chosen++;
  return chosen / 1000;
}

describe("InjectionArms", () => {
  it("measures the paired gain of injecting nothing from the episode itself: the waste saved, less a search per needed item", () => {
    // Both hints wasted: nothing saves 2 × 0.02.
    const wasted = new InjectionArms();
    wasted.update(episode(1, "inject", []), PRIOR_MEAN_WEIGHTS);
    expect(wasted.belief().gainOfNothing).toBeCloseTo(posteriorMean([0.04]), 10);
    // One hint used, one wasted: nothing saves 0.02 and costs a search (0.15), and, before any evidence of
    // how often searching ends hedged, one time in twenty a hedged answer (0.5).
    const used = new InjectionArms();
    used.update(episode(1, "inject", ["a"]), PRIOR_MEAN_WEIGHTS);
    expect(used.belief().gainOfNothing).toBeCloseTo(posteriorMean([0.02 - 0.15 - 0.05 * 0.5]), 10);
    // An episode that injected nothing and whose model searched for a and found it: the easy case of the
    // many that search, which would favour holding back on what holding back produced. No gain.
    const heldBack = new InjectionArms();
    heldBack.update(episode(1, "nothing", ["a"]), PRIOR_MEAN_WEIGHTS);
    expect(heldBack.belief().gainOfNothing).toBe(INJECTION_GAIN_PRIOR.mean);
    // One whose model neither searched nor hedged needed nothing: injecting would have wasted both hints.
    const neededNothing = new InjectionArms();
    neededNothing.update(episode(1, "nothing", []), PRIOR_MEAN_WEIGHTS);
    expect(neededNothing.belief().gainOfNothing).toBeCloseTo(posteriorMean([0.04]), 10);
    // One whose model searched in vain and hedged cannot tell "needed nothing" from "could not find it": no gain.
    const inVain = new InjectionArms();
    inVain.update(episode(1, "nothing", [], { searchedAfter: ["q", "q again"], hedging: true }), PRIOR_MEAN_WEIGHTS);
    expect(inVain.belief().gainOfNothing).toBe(INJECTION_GAIN_PRIOR.mean);
  });

  it("injects as the priors do without evidence, stops once injected items go unused, and starts again when they are used", () => {
    const arms = new InjectionArms();
    expect(nothingShare(arms)).toBeLessThan(0.5);
    let sequence = 0;
    for (let i = 0; i < 10; i++) arms.update(episode(++sequence, "inject", []), PRIOR_MEAN_WEIGHTS);
    expect(nothingShare(arms)).toBeGreaterThan(0.7);
    expect(nothingShare(arms, 1, "inject")).toBeLessThan(0.15);
    // Held back, the runs needed neither item either (no evidence either way); and no trouble came of injecting nothing.
    for (let i = 0; i < 10; i++) arms.update(episode(++sequence, "nothing", []), PRIOR_MEAN_WEIGHTS);
    expect(nothingShare(arms)).toBeGreaterThan(0.6);
    // The model starts using both items whenever they are put in (and searches for them when they are not):
    // the draws that check injecting again see it, and holding back stops.
    const random = mulberry32(2);
    for (let i = 0; i < 40; i++) {
      const arm = arms.choose(random);
      arms.update(episode(++sequence, arm, ["a", "b"]), PRIOR_MEAN_WEIGHTS);
    }
    expect(nothingShare(arms)).toBeLessThan(0.05);
  });

  it("does not starve a project after one unused injection: evidence that stops coming fades, and injecting is checked again", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    // One injection went unused (+0.04 for nothing); then the prompts held back searched, and none of their
    // runs needed a candidate (no paired gain either way).
    arms.update(episode(++sequence, "inject", []), PRIOR_MEAN_WEIGHTS);
    const random = mulberry32(11);
    let injectedLater = 0;
    for (let i = 0; i < 29; i++) {
      const arm = arms.choose(random);
      if (arm !== "nothing") injectedLater++;
      const outcome = arm === "nothing" ? { searchedAfter: ["grep roundHalfEven"] } : {};
      arms.update(episode(++sequence, arm, arm === "nothing" ? [] : ["a", "b"], outcome), PRIOR_MEAN_WEIGHTS);
    }
    // One episode is no certainty: the prompts after it still got context, and what they used kept it coming.
    expect(injectedLater).toBeGreaterThan(10);
    expect(nothingShare(arms)).toBeLessThan(0.1);
  });

  it("after one unused injection and held-back prompts that searched and needed nothing, draws inject again as the evidence fades", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    arms.update(episode(++sequence, "inject", []), PRIOR_MEAN_WEIGHTS);
    const searched = { searchedAfter: ["grep roundHalfEven"] };
    for (let i = 0; i < 29; i++) arms.update(episode(++sequence, "nothing", [], searched), PRIOR_MEAN_WEIGHTS);
    expect(nothingShare(arms)).toBeLessThan(0.6);
  });

  it("learns trouble the pairing cannot see: a correction after every injection, none without", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    // One injected item is used (the pairing favours injecting), but the user corrects every answer that came with
    // injection, as hints only too.
    for (let i = 0; i < 15; i++) {
      arms.update(episode(++sequence, "inject", ["a"], { corrections: 1 }), PRIOR_MEAN_WEIGHTS);
      arms.update(episode(++sequence, "hints", ["a"], { corrections: 1 }), PRIOR_MEAN_WEIGHTS);
      arms.update(episode(++sequence, "inject", [], { prefetchedKeys: [], usedKeys: [], prefetchRounds: [] }), PRIOR_MEAN_WEIGHTS);
    }
    const belief = arms.belief();
    expect(belief.troubleWithInjection).toBeGreaterThan(0.6);
    expect(belief.troubleWithHints).toBeGreaterThan(0.6);
    expect(belief.troubleWithout).toBeLessThan(0.1);
    // A correction at the prior weights: the completion bonus falls from 0.5 to 0.2, and two follow-ups cost 0.2.
    expect(belief.troubleCost).toBeGreaterThan(0.4);
    expect(nothingShare(arms)).toBeGreaterThan(0.9);
  });

  it("an arm whose every play drew a correction stays known for it while it is not played: its rate holds, only its certainty fades", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    // Hints only, ten times, each answer corrected; then a hundred prompts held back, none corrected.
    for (let i = 0; i < 10; i++) arms.update(episode(++sequence, "hints", [], { corrections: 1 }), PRIOR_MEAN_WEIGHTS);
    const known = arms.belief().troubleWithHints;
    expect(known).toBeGreaterThan(0.6);
    for (let i = 0; i < 100; i++) arms.update(episode(++sequence, "nothing", []), PRIOR_MEAN_WEIGHTS);
    expect(arms.belief().troubleWithHints).toBeCloseTo(known, 10);
    // Less sure of it than just after the evidence (weight of the prior's five counts), not back to trouble-free.
    expect(arms.toJSON().troubleWithHints?.reduce((sum, count) => sum + count, 0)).toBeLessThan(10);
    expect(nothingShare(arms, 3, "hints")).toBeLessThan(0.05);
  });

  it("a correction as common without injection as with it is not blamed on injecting", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    for (let i = 0; i < 40; i++) {
      const corrections = i % 3 === 0 ? 1 : 0;
      arms.update(episode(++sequence, "inject", ["a"], { corrections }), PRIOR_MEAN_WEIGHTS);
      arms.update(
        episode(++sequence, "inject", [], { prefetchedKeys: [], usedKeys: [], prefetchRounds: [], corrections }),
        PRIOR_MEAN_WEIGHTS,
      );
    }
    expect(nothingShare(arms)).toBeLessThan(0.05);
  });

  it("counts a follow-up that asks the same again as trouble, like a correction", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    for (let i = 0; i < 15; i++) {
      arms.update(episode(++sequence, "inject", ["a", "b"], { followUps: 1, repeats: 1 }), PRIOR_MEAN_WEIGHTS);
      arms.update(episode(++sequence, "nothing", []), PRIOR_MEAN_WEIGHTS);
    }
    expect(arms.belief().troubleWithInjection).toBeGreaterThan(0.6);
    expect(arms.belief().troubleWithout).toBeLessThan(0.1);
  });

  it("prices a needed item left out at a search and what the searches holding back led to cost past their first", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    // Held back, the model searched three times, found nothing and hedged, and the user asked again.
    const hedged = { hedging: true, followUps: 1, searchedAfter: ["q", "q again", "q once more"] };
    for (let i = 0; i < 10; i++) arms.update(episode(++sequence, "nothing", [], hedged), PRIOR_MEAN_WEIGHTS);
    const learned = arms.belief();
    // A hedged answer, not a hedge-free one after the first search: the hedge (0.2), two searches (0.3), the
    // follow-up (0.1) and the completion bonus it cost (0.3).
    expect(learned.struggleCost).toBeGreaterThan(0.85);
    expect(learned.struggleRate).toBeGreaterThan(0.6);
    // Those episodes needed none of the candidates: no paired gain from them.
    expect(learned.gainOfNothing).toBe(INJECTION_GAIN_PRIOR.mean);
    // Those searches were held back's own, where injecting would have put both in: each cost 0.9 past its first
    // search, and they price what holding back leaves out, more than every search's rate times its cost (weighed
    // as one search). Hints only have not been played: every search's price.
    expect(learned.leftOutPrice.nothing).toBeGreaterThan(0.85);
    expect(learned.leftOutPrice.hints).toBeCloseTo(learned.struggleRate * learned.struggleCost, 10);
    // One hint used, one wasted: nothing saves 0.02, costs a search, and what held back's searches cost past it.
    arms.update(episode(++sequence, "inject", ["a"]), PRIOR_MEAN_WEIGHTS);
    expect(arms.belief().gainOfNothing).toBeCloseTo(posteriorMean([0.02 - 0.15 - learned.leftOutPrice.nothing]), 10);
  });

  it("prices hints only by what the searches they led to cost, not by every search's rate", () => {
    const arms = new InjectionArms();
    let sequence = 0;
    // Prompts whose prefetch found nothing: the model searched once and found what it needed. Searching looks cheap.
    const noneFound = { prefetchedKeys: [], usedKeys: [], prefetchRounds: [], searchedAfter: ["q"] };
    for (let i = 0; i < 20; i++) arms.update(episode(++sequence, "inject", [], noneFound), PRIOR_MEAN_WEIGHTS);
    // Hints only where injecting would have put in the wrong excerpt's text: the model, not misled, searched three
    // times in vain, hedged, and was asked again.
    const inVain = { hedging: true, followUps: 1, searchedAfter: ["q", "q again", "q once more"] };
    for (let i = 0; i < 10; i++) arms.update(excerptEpisode(++sequence, "hints", "w", inVain), PRIOR_MEAN_WEIGHTS);
    const learned = arms.belief();
    expect(learned.struggleRate * learned.struggleCost).toBeLessThan(0.3);
    expect(learned.leftOutPrice.hints).toBeGreaterThan(0.8);
    // Holding back has not been played: it is priced as every search is.
    expect(learned.leftOutPrice.nothing).toBeCloseTo(learned.struggleRate * learned.struggleCost, 10);
    // Injected, the wrong excerpt misled the answer and drew a correction. Hints only are priced as leaving it out:
    // a search, and what hints' searches cost past it. Each episode that ran hints only
    // is priced by what it cost: three searches, the hedge and the follow-up (0.2 + 0.1 + 0.45 + the completion
    // bonus's 0.3 it lost).
    arms.update(excerptEpisode(++sequence, "inject", "w", { usedKeys: ["w"], corrections: 1 }), PRIOR_MEAN_WEIGHTS);
    const price = 0.15 + learned.leftOutPrice.hints;
    expect(arms.belief().gainOfHints).toBeCloseTo(posteriorMean([...Array.from({ length: 10 }, () => -1.05), -price]), 10);
  });

  it("favours injecting for a user misled by wrong excerpts whose model, given hints only, often searches in vain", () => {
    const arms = new InjectionArms();
    const random = mulberry32(7);
    let sequence = 0;
    // In the proportions of bench-adaptive's user E at the priors (calibration seed 1): of nine prompts, two get
    // the wrong excerpt, three the right one, and four find nothing to inject.
    for (let i = 0; i < 200; i++) {
      const arm = arms.choose(random);
      const kind = i % 9;
      if (kind >= 5) {
        // The prefetch found nothing worth injecting (its one candidate scored under every floor); the model
        // searched and found what it needed.
        const weak: ScoredCandidate = { key: "x", path: "x.ts", confidence: 0.3, excerptTokens: 100, summaryTokens: 10 };
        const rounds = [{ candidates: [weak], remainingTokens: 100_000, penalty: 1, neededKeys: [] }];
        const noneFound = { prefetchedKeys: [], usedKeys: [], prefetchRounds: rounds, searchedAfter: ["q"] };
        arms.update(episode(++sequence, arm, [], noneFound), PRIOR_MEAN_WEIGHTS);
      } else if (kind >= 2) {
        // The right excerpt: cited when injected, read as a hint, searched for and found when held back.
        const used = arm === "nothing" ? { searchedAfter: ["q"], neededKeys: ["g"] } : { usedKeys: ["g"] };
        arms.update(excerptEpisode(++sequence, arm, "g", used), PRIOR_MEAN_WEIGHTS);
      } else {
        // The wrong excerpt: injected, it misleads the answer and draws a correction; left out (hints only or
        // nothing), the model searches, and on one prompt in two finds nothing, hedges and is asked again.
        const left =
          kind === 0 ? { searchedAfter: ["q"] } : { hedging: true, followUps: 1, searchedAfter: ["q", "q again", "q once more"] };
        arms.update(
          excerptEpisode(++sequence, arm, "w", arm === "inject" ? { usedKeys: ["w"], corrections: 1 } : left),
          PRIOR_MEAN_WEIGHTS,
        );
      }
    }
    // Hints spare the correction (0.5) but cost a search (0.15) or a search in vain (about 1.05), and a read
    // where the excerpt was right: a loss, which the beliefs' means say.
    expect(favouredArm(arms.belief())).toBe("inject");
  });

  it("keeps injecting for a user misled by one excerpt in four, whose model left without context often searches in vain", () => {
    const arms = new InjectionArms();
    const random = mulberry32(3);
    let sequence = 0;
    let heldBack = 0;
    for (let i = 0; i < 200; i++) {
      const arm = arms.choose(random);
      const misled = i % 4 === 0;
      // Injected: the wrong excerpt is cited (counted used) and corrected, or the right one is used. Held back:
      // the model searches, and on one prompt in two finds nothing, hedges and is asked again.
      const outcome: Partial<EpisodeObservation> =
        arm === "inject"
          ? { corrections: misled ? 1 : 0 }
          : i % 2 === 0
            ? { hedging: true, followUps: 1, searchedAfter: ["q", "q again", "q once more"] }
            : { searchedAfter: ["q"] };
      arms.update(episode(++sequence, arm, arm === "nothing" && i % 2 === 0 ? [] : ["a"], outcome), PRIOR_MEAN_WEIGHTS);
      if (i >= 50 && arm === "nothing") heldBack++;
    }
    expect(arms.belief().troubleWithInjection).toBeGreaterThan(arms.belief().troubleWithout);
    expect(heldBack).toBeLessThan(15);
  });

  it("keeps only the last twenty episodes' use, and survives JSON with the same choices", () => {
    const arms = new InjectionArms();
    for (let i = 1; i <= 25; i++) arms.update(episode(i, i % 2 === 0 ? "nothing" : "inject", []), PRIOR_MEAN_WEIGHTS);
    expect(arms.belief().recent).toHaveLength(20);
    expect(arms.belief().recent.at(-1)).toBe("unused");
    expect(arms.belief().recent.at(-2)).toBe("held back");
    const copy = InjectionArms.fromJSON(JSON.parse(JSON.stringify(arms.toJSON())));
    expect(copy.belief()).toEqual(arms.belief());
    const a = mulberry32(5);
    const b = mulberry32(5);
    for (let draw = 0; draw < 50; draw++) expect(copy.choose(b)).toBe(arms.choose(a));
  });

  it("rejects a damaged state, naming what is damaged", () => {
    const json = new InjectionArms().toJSON();
    expect(() => InjectionArms.fromJSON({ ...json, troubleWithout: [1] })).toThrow(/troubleWithout/);
    expect(() => InjectionArms.fromJSON({ ...json, gain: { ...json.gain, mean: "x" } })).toThrow(/gain.mean/);
    expect(() => InjectionArms.fromJSON({ ...json, recent: ["maybe"] })).toThrow(/recent/);
    expect(() => InjectionArms.fromJSON({ ...json, struggle: [1, -1] })).toThrow(/struggle/);
  });

  it("reads a state saved before hedged answers were counted as having no evidence of them", () => {
    const { struggle: _struggle, struggleCost: _cost, ...older } = new InjectionArms().toJSON();
    expect(InjectionArms.fromJSON(older).toJSON()).toEqual(new InjectionArms().toJSON());
  });
});

/**
 * The normal posterior's mean after these gains, each added in one episode
 * after the one before (the evidence keeps `memory` of its weight an
 * episode), in closed form: the prior on the mean, and the gains' weighted
 * mean with a spread pooled from its prior (worth a few episodes) and their own.
 */
function posteriorMean(gains: number[]): number {
  const { mean: priorMean, sd, episodeSd, episodeSdWeight, memory } = INJECTION_GAIN_PRIOR;
  let weight = 0;
  let mean = 0;
  let meanSquare = 0;
  for (const gain of gains) {
    weight = weight * memory + 1;
    mean += (gain - mean) / weight;
    meanSquare += (gain * gain - meanSquare) / weight;
  }
  const variance = (episodeSdWeight * episodeSd ** 2 + weight * (meanSquare - mean * mean)) / (episodeSdWeight + weight);
  const priorPrecision = 1 / sd ** 2;
  return (priorMean * priorPrecision + (weight * mean) / variance) / (priorPrecision + weight / variance);
}
