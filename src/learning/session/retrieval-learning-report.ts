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
  };
}

/** `sylk learning` and `/learning`: what was learned, as lines of text. */
export function learningLines(summary: RetrievalLearningSummary): string[] {
  const lines = [`Self-tuning retrieval: ${summary.observations} observation${summary.observations === 1 ? "" : "s"} in this project.`];
  const width = Math.max(...summary.parameters.map((parameter) => parameter.name.length));
  lines.push(`${"parameter".padEnd(width)}  alpha    beta     mean   effective samples`);
  for (const parameter of summary.parameters) {
    lines.push(
      `${parameter.name.padEnd(width)}  ${fixed(parameter.alpha, 7)}  ${fixed(parameter.beta, 7)}  ${fixed(parameter.mean, 5, 3)}  ${fixed(parameter.effectiveSamples, 8, 1)}`,
    );
  }
  if (summary.contexts.length === 0) lines.push("Contexts: none discovered yet.");
  else {
    lines.push(`Contexts (${summary.contexts.length}, discovered from the prompts):`);
    for (const context of summary.contexts) {
      const baseline = context.baseline === null ? "no satisfaction yet" : `satisfaction baseline ${context.baseline.toFixed(2)}`;
      const { relevanceMult, struggleMult, wasteMult } = context.bias;
      lines.push(`  ${context.id}: ${context.count} prompt${context.count === 1 ? "" : "s"}, ${baseline}, bias relevance ×${relevanceMult.toFixed(2)} struggle ×${struggleMult.toFixed(2)} waste ×${wasteMult.toFixed(2)}`);
    }
  }
  const profile = summary.profile;
  const applies = profile.observationCount >= MIN_PROFILE_OBSERVATIONS ? "applied" : `applies after ${MIN_PROFILE_OBSERVATIONS} observations`;
  lines.push(
    `Your profile (all projects, ${profile.observationCount} observation${profile.observationCount === 1 ? "" : "s"}, ${applies}): prefers thorough ${profile.prefersThorough.toFixed(2)}, tolerates searches ${profile.toleratesSearches.toFixed(2)}, waste penalty ×${profile.wastePenaltyMult.toFixed(2)}, struggle penalty ×${profile.strugglePenaltyMult.toFixed(2)}`,
  );
  return lines;
}

function fixed(value: number, width: number, digits = 2): string {
  return value.toFixed(digits).padStart(width);
}
