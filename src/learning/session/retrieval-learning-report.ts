import { INITIAL_PRIORS, type PrefetchThresholds } from "../../context/prefetch/prefetch-config.js";
import type { AdaptiveSample, ParameterName } from "../adaptive-state.js";
import { favouredArm, type InjectionBelief } from "../injection-arms.js";
import { retrievalSettingsOf } from "../retrieval-mapping.js";
import { PRIOR_MEAN_WEIGHTS, type RewardWeights } from "../satisfaction.js";
import { MIN_PROFILE_OBSERVATIONS } from "../user-weight-profile.js";
import type { RetrievalLearningSummary } from "./retrieval-learning.js";

/** `sylk learning --json`: snake_case field names, like the other JSON outputs. */
export function learningJson(summary: RetrievalLearningSummary): object {
  return {
    observations: summary.observations,
    parameters: summary.parameters.map((parameter) => ({
      name: parameter.name,
      alpha: parameter.alpha,
      beta: parameter.beta,
      mean: parameter.mean,
      effective_samples: parameter.effectiveSamples,
      ...(parameter.played !== undefined ? { played: parameter.played } : {}),
    })),
    contexts: summary.contexts.map((context) => ({
      id: context.id,
      count: context.count,
      satisfaction_baseline: context.baseline,
      bias: {
        relevance_mult: context.bias.relevanceMult,
        struggle_mult: context.bias.struggleMult,
        waste_mult: context.bias.wasteMult,
        observation_count: context.bias.observationCount,
      },
    })),
    profile: {
      prefers_thorough: summary.profile.prefersThorough,
      tolerates_searches: summary.profile.toleratesSearches,
      waste_penalty_mult: summary.profile.wastePenaltyMult,
      struggle_penalty_mult: summary.profile.strugglePenaltyMult,
      observation_count: summary.profile.observationCount,
      applied: summary.profile.observationCount >= MIN_PROFILE_OBSERVATIONS,
    },
    injection: {
      favoured_arm: favouredArm(summary.injection),
      holds_back: favouredArm(summary.injection) === "nothing",
      gain_of_nothing_per_prompt: summary.injection.gainOfNothing,
      gain_of_hints_only_per_prompt: summary.injection.gainOfHints,
      trouble_with_injection: summary.injection.troubleWithInjection,
      trouble_with_hints_only: summary.injection.troubleWithHints,
      trouble_without: summary.injection.troubleWithout,
      recent: summary.injection.recent,
    },
  };
}

/**
 * `sylk learning` and `/learning`: what was learned, in words a user reads
 * (more or fewer excerpts, more or fewer hints, a larger or smaller share of
 * the window, and why), each beside where it started. The numbers behind it
 * are `--json`'s.
 */
export function learningLines(summary: RetrievalLearningSummary): string[] {
  const count = summary.observations;
  const lines = [`Self-tuning retrieval: ${count} observation${count === 1 ? "" : "s"} in this project.`];
  if (count === 0) {
    lines.push(`Nothing learned yet: each prompt gets the starting settings (${settingsText(INITIAL_PRIORS)}).`);
  } else {
    const sample = meanSample(summary);
    const learned = retrievalSettingsOf(sample, INITIAL_PRIORS.maxBudgetPercent);
    lines.push(injectionLine(summary.injection));
    lines.push(`What each prompt gets now, against where it started:`, ...changeLines(sample.appliedWeights, learned));
  }
  lines.push(contextLine(summary), profileLine(summary));
  return lines;
}

/** The settings at the learned means, the thresholds as prompts run with them (no sampling): what a typical prompt gets. */
function meanSample(summary: RetrievalLearningSummary): Pick<AdaptiveSample, "appliedWeights" | "sampledThresholds"> {
  const mean = new Map(summary.parameters.map((parameter) => [parameter.name, parameter.played ?? parameter.mean]));
  const of = (name: ParameterName, fallback: number) => mean.get(name) ?? fallback;
  return {
    appliedWeights: {
      taskSuccess: of("weights.taskSuccess", PRIOR_MEAN_WEIGHTS.taskSuccess),
      relevanceBonus: of("weights.relevanceBonus", PRIOR_MEAN_WEIGHTS.relevanceBonus),
      strugglePenalty: of("weights.strugglePenalty", PRIOR_MEAN_WEIGHTS.strugglePenalty),
      wastePenalty: of("weights.wastePenalty", PRIOR_MEAN_WEIGHTS.wastePenalty),
    },
    sampledThresholds: {
      confidence: of("thresholds.confidence", INITIAL_PRIORS.confidenceThreshold),
      excerpt: of("thresholds.excerpt", INITIAL_PRIORS.excerptThreshold),
      budget: of("thresholds.budget", INITIAL_PRIORS.maxBudgetPercent),
    },
  };
}

function settingsText(settings: PrefetchThresholds): string {
  return `up to ${plural(settings.maxExcerpts, "excerpt")} and ${plural(settings.maxSummaries, "file hint")}, within ${percent(settings.maxBudgetPercent)} of the window`;
}

/** Whether a learned weight moved up or down from its prior's mean, beyond a twentieth of it (less is noise in the words). */
function moved(value: number, prior: number): "up" | "down" | undefined {
  if (value > prior * 1.05) return "up";
  if (value < prior * 0.95) return "down";
  return undefined;
}

/** What changed, from the weights at their learned means (`meanSample`) and the settings they give. */
function changeLines(weights: RewardWeights, learned: PrefetchThresholds): string[] {
  const start = INITIAL_PRIORS;
  const change = (name: "wastePenalty" | "strugglePenalty" | "relevanceBonus") => moved(weights[name], PRIOR_MEAN_WEIGHTS[name]);
  const why = (direction: "up" | "down" | undefined, up: string, down: string) =>
    direction === "up" ? `: ${up}` : direction === "down" ? `: ${down}` : "";
  const relevance = change("relevanceBonus");
  return [
    `  Excerpts: up to ${learned.maxExcerpts} (started at ${start.maxExcerpts})${why(change("wastePenalty"), "excerpts put in front of the model often went unused", "the excerpts it added were used")}; added when a match scores ${learned.excerptThreshold.toFixed(2)} or more (started at ${start.excerptThreshold.toFixed(2)}).`,
    `  File hints: up to ${learned.maxSummaries} (started at ${start.maxSummaries})${why(change("strugglePenalty"), "the agent often searched again after what was prefetched", "the agent rarely had to search again")}; offered from a score of ${learned.confidenceThreshold.toFixed(2)} (started at ${start.confidenceThreshold.toFixed(2)}).`,
    `  Share of the window for prefetched context: ${percent(learned.maxBudgetPercent)} (started at ${percent(start.maxBudgetPercent)}).`,
    `  This session's recent work counts ${relevance === "up" ? "more than" : relevance === "down" ? "less than" : "as much as"} at the start${why(relevance, "what it found there was used", "what it found there went unused")}.`,
  ];
}

/**
 * Whether prompts get prefetched context, and in what form, and why, from
 * the evidence the arms weigh: what the last prompts that got it did with
 * it, trouble (corrections, the same question asked again) with excerpts,
 * with hints only and without, and what injecting nothing scores on the
 * same prompts.
 */
function injectionLine(belief: InjectionBelief): string {
  const arm = favouredArm(belief);
  const recent = belief.recent;
  const heldBack = recent.filter((use) => use === "held back").length;
  const hintsOnly = recent.filter((use) => use === "hints used" || use === "hints unused").length;
  const given = recent.filter((use) => use !== "held back" && use !== "none found");
  const used = given.filter((use) => use === "used" || use === "hints used").length;
  const reasons: string[] = [];
  if (given.length > 0)
    reasons.push(
      used === 0
        ? `${given.length === 1 ? "the one prompt" : `the last ${given.length} prompts`} that got it did not use it`
        : `${used} of the last ${plural(given.length, "prompt")} that got it used it`,
    );
  if (belief.troubleWithInjection - Math.min(belief.troubleWithout, belief.troubleWithHints) >= 0.1)
    reasons.push(
      `corrections or the same question again followed ${percent(belief.troubleWithInjection)} of answers with excerpts, ${percent(belief.troubleWithHints)} with hints only, ${percent(belief.troubleWithout)} without`,
    );
  const gain = belief.gainOfNothing;
  if (Math.abs(gain) >= 0.005)
    reasons.push(
      `on the same prompts, none would ${gain > 0 ? "have done better" : "have cost"} (${gain > 0 ? "+" : "−"}${Math.abs(gain).toFixed(2)} a prompt)`,
    );
  const checks = [
    arm !== "nothing" && heldBack > 0 ? `held back on ${heldBack}` : undefined,
    arm !== "hints" && hintsOnly > 0 ? `hints only on ${hintsOnly}` : undefined,
  ].filter((check): check is string => check !== undefined);
  const checked = checks.length > 0 ? ` (${checks.join(", ")} of the last ${recent.length} prompts, to check)` : "";
  const decision =
    arm === "nothing"
      ? `Prefetched context: held back${heldBack > 0 ? ` (on ${heldBack} of the last ${recent.length} prompts)` : ""}`
      : arm === "hints"
        ? `Prefetched context: file hints only, no excerpt text${hintsOnly > 0 ? ` (on ${hintsOnly} of the last ${recent.length} prompts)` : ""}${checks.length > 0 ? checked : ""}`
        : `Prefetched context: put in front of the model${checked}`;
  return `${decision}${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}.`;
}

function contextLine(summary: RetrievalLearningSummary): string {
  const contexts = summary.contexts;
  if (contexts.length === 0) return "Kinds of prompt: none told apart yet (each prompt is tuned the same way).";
  const largest = Math.max(...contexts.map((context) => context.count));
  return `Kinds of prompt: ${contexts.length} told apart by what they are about, each tuned on its own (the largest has ${plural(largest, "prompt")}).`;
}

function profileLine(summary: RetrievalLearningSummary): string {
  const profile = summary.profile;
  const applies = profile.observationCount >= MIN_PROFILE_OBSERVATIONS ? "it applies" : `it applies after ${MIN_PROFILE_OBSERVATIONS}`;
  // Both leanings run from −1 to +1 and start at 0.
  const leaning = (value: number, more: string, less: string) => (value >= 0.1 ? more : value <= -0.1 ? less : undefined);
  const traits = [
    leaning(profile.prefersThorough, "you keep going with more context", "you do well with less context"),
    leaning(profile.toleratesSearches, "searches by the agent do not bother you", "you prefer the agent not to search much"),
  ].filter((trait): trait is string => trait !== undefined);
  return `Across your projects (${plural(profile.observationCount, "observation")}; ${applies}): ${traits.length > 0 ? traits.join(", ") : "no leaning yet"}.`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
