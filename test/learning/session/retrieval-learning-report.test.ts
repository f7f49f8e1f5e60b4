import { describe, expect, it } from "vitest";
import type { RetrievalLearningSummary } from "../../../src/learning/session/retrieval-learning.js";
import { learningJson, learningLines } from "../../../src/learning/session/retrieval-learning-report.js";
import type { InjectionBelief } from "../../../src/learning/injection-arms.js";

const profile = { prefersThorough: 0, toleratesSearches: 0, wastePenaltyMult: 1, strugglePenaltyMult: 1, observationCount: 0 };
/** Injection at its prior: no evidence either way. */
const injection: InjectionBelief = {
  gainOfNothing: -0.005,
  gainOfHints: -0.005,
  troubleWithInjection: 0.05,
  troubleWithHints: 0.05,
  troubleWithout: 0.05,
  injectRate: 0.5,
  troubleCost: 0.5,
  struggleRate: 0.05,
  struggleCost: 0.5,
  leftOutPrice: { hints: 0.025, nothing: 0.025 },
  recent: [],
};

/** A summary whose weights sit at the given means (alpha and beta only need to agree with them). */
function summary(means: Record<string, number>, observations = 12): RetrievalLearningSummary {
  const priors: Record<string, number> = {
    "weights.taskSuccess": 0.8,
    "weights.relevanceBonus": 0.3,
    "weights.strugglePenalty": 0.4,
    "weights.wastePenalty": 0.1,
    "thresholds.confidence": 0.85,
    "thresholds.excerpt": 0.9,
    "thresholds.budget": 0.1,
  };
  const parameters = Object.entries(priors).map(([name, prior]) => {
    const mean = means[name] ?? prior;
    return {
      name: name as RetrievalLearningSummary["parameters"][number]["name"],
      alpha: mean * 10,
      beta: (1 - mean) * 10,
      mean,
      effectiveSamples: 10,
    };
  });
  return {
    observations,
    parameters,
    contexts: [{ id: "ctx_0", count: 7, baseline: 0.4, bias: { relevanceMult: 1, struggleMult: 1, wasteMult: 1, observationCount: 7 } }],
    profile,
    injection,
  };
}

describe("what /learning says", () => {
  it("before anything is learned: the starting settings", () => {
    const lines = learningLines({ ...summary({}, 0), contexts: [] });
    expect(lines).toContain(
      "Nothing learned yet: each prompt gets the starting settings (up to 2 excerpts and 3 file hints, within 10% of the window).",
    );
    expect(lines).toContain("Kinds of prompt: none told apart yet (each prompt is tuned the same way).");
  });

  it("at the priors: the same numbers, and no reason given for a change that did not happen", () => {
    const text = learningLines(summary({})).join("\n");
    expect(text).toContain("Excerpts: up to 2 (started at 2); added when a match scores 0.90 or more (started at 0.90).");
    expect(text).toContain("File hints: up to 3 (started at 3); offered from a score of 0.85 (started at 0.85).");
    expect(text).toContain("This session's recent work counts as much as at the start.");
  });

  it("unused excerpts make fewer, and says why; searches after the prefetch make more hints", () => {
    const text = learningLines(summary({ "weights.wastePenalty": 0.2, "weights.strugglePenalty": 0.7 })).join("\n");
    expect(text).toContain("Excerpts: up to 1 (started at 2): excerpts put in front of the model often went unused");
    expect(text).toContain("File hints: up to 5 (started at 3): the agent often searched again after what was prefetched");
  });

  it("used excerpts make more, and a larger budget is a larger share of the window", () => {
    const text = learningLines(summary({ "weights.wastePenalty": 0.05, "thresholds.budget": 0.15 })).join("\n");
    expect(text).toContain("Excerpts: up to 4 (started at 2): the excerpts it added were used");
    expect(text).toContain("Share of the window for prefetched context: 15% (started at 10%).");
  });

  it("gives a threshold as prompts run with it, which stays at the start until the evidence moves it further than its spread", () => {
    const learned = summary({ "thresholds.confidence": 0.8 });
    const confidence = learned.parameters.find((parameter) => parameter.name === "thresholds.confidence");
    const drifted = { ...learned, parameters: learned.parameters.map((p) => (p === confidence ? { ...p, played: 0.85 } : p)) };
    expect(learningLines(drifted).join("\n")).toContain("offered from a score of 0.85 (started at 0.85).");
    const moved = { ...learned, parameters: learned.parameters.map((p) => (p === confidence ? { ...p, played: 0.82 } : p)) };
    expect(learningLines(moved).join("\n")).toContain("offered from a score of 0.82 (started at 0.85).");
    expect(JSON.stringify(learningJson(moved))).toContain('"played":0.82');
  });

  it("names the kinds of prompt by size, not by id, and the user's leanings in words", () => {
    const lines = learningLines({
      ...summary({}),
      profile: { ...profile, prefersThorough: 0.3, toleratesSearches: -0.2, observationCount: 9 },
    });
    expect(lines).toContain("Kinds of prompt: 1 told apart by what they are about, each tuned on its own (the largest has 7 prompts).");
    expect(lines).toContain(
      "Across your projects (9 observations; it applies): you keep going with more context, you prefer the agent not to search much.",
    );
    expect(lines.join("\n")).not.toMatch(/ctx_0|alpha/);
  });

  it("says when prefetched context is held back and why: unused by the last prompts that got it, and what none scores on them", () => {
    const lines = learningLines({
      ...summary({}),
      injection: {
        ...injection,
        gainOfNothing: 0.031,
        recent: ["unused", "unused", "held back", "unused", "none found", "held back", "held back"],
      },
    });
    expect(lines).toContain(
      "Prefetched context: held back (on 3 of the last 7 prompts): the last 3 prompts that got it did not use it; on the same prompts, none would have done better (+0.03 a prompt).",
    );
  });

  it("names corrections that follow injected context, and keeps injecting where it is used", () => {
    const heldBack = learningLines({
      ...summary({}),
      injection: { ...injection, gainOfNothing: 0.002, troubleWithInjection: 0.8, troubleWithout: 0.04, recent: ["unused", "held back"] },
    });
    expect(heldBack).toContain(
      "Prefetched context: held back (on 1 of the last 2 prompts): the one prompt that got it did not use it; corrections or the same question again followed 80% of answers with excerpts, 5% with hints only, 4% without.",
    );
    const kept = learningLines({ ...summary({}), injection: { ...injection, gainOfNothing: -0.12, recent: ["used", "used", "unused"] } });
    expect(kept).toContain(
      "Prefetched context: put in front of the model: 2 of the last 3 prompts that got it used it; on the same prompts, none would have cost (−0.12 a prompt).",
    );
    expect(learningJson({ ...summary({}), injection: { ...injection, gainOfNothing: -0.12 } })).toMatchObject({
      injection: { holds_back: false, gain_of_nothing_per_prompt: -0.12 },
    });
  });

  it("says when only file hints go in, and why: corrections follow excerpts and not hints", () => {
    const misled = {
      ...injection,
      gainOfNothing: -0.2,
      gainOfHints: -0.01,
      troubleWithInjection: 0.6,
      troubleWithHints: 0.02,
      troubleWithout: 0.3,
      recent: ["hints used", "hints used", "used"] as InjectionBelief["recent"],
    };
    expect(learningLines({ ...summary({}), injection: misled })).toContain(
      "Prefetched context: file hints only, no excerpt text (on 2 of the last 3 prompts): 3 of the last 3 prompts that got it used it; corrections or the same question again followed 60% of answers with excerpts, 2% with hints only, 30% without; on the same prompts, none would have cost (−0.20 a prompt).",
    );
    expect(learningJson({ ...summary({}), injection: misled })).toMatchObject({
      injection: { favoured_arm: "hints", holds_back: false, gain_of_hints_only_per_prompt: -0.01, trouble_with_hints_only: 0.02 },
    });
  });
});
