import type { ScoredCandidate } from "../context/prefetch/injection-selection.js";
import type { InjectionArm } from "./injection-arms.js";

/**
 * Satisfaction inference without explicit ratings: what one user prompt
 * (an episode) looked like, and how satisfied the user probably was, from
 * behaviour alone.
 */

/** The weights of the satisfaction terms (each in [0, 1] as sampled). */
export interface RewardWeights {
  taskSuccess: number;
  relevanceBonus: number;
  strugglePenalty: number;
  wastePenalty: number;
}

/** What the prefetcher's floors and budget are derived from. */
export interface ThresholdConfig {
  confidence: number;
  excerpt: number;
  budget: number;
}

/** The priors' means: at these weights `inferSatisfaction` is exactly the unweighted function. */
export const PRIOR_MEAN_WEIGHTS: Readonly<RewardWeights> = Object.freeze({
  taskSuccess: 0.8,
  relevanceBonus: 0.3,
  strugglePenalty: 0.4,
  wastePenalty: 0.1,
});

/** One prompt's episode as the observation log keeps it (docs/DESIGN-NOTES.md, "Outcomes without ratings"). */
export interface EpisodeObservation {
  /** Position in the observation log; assigned by the log when the episode is appended. */
  sequence: number;
  /** Milliseconds since the epoch, when the episode closed. */
  timestamp: number;
  /** The discovered context (`ContextDiscovery`) the prompt fell into when it was sampled. */
  contextId: string;
  /** The prompt and its embedding: applying the episode teaches `ContextDiscovery`. */
  query: string;
  queryEmbedding: number[];
  /** The values played before the profile and the context's bias (a Thompson draw where one is played); the distributions are updated with these. */
  sampledWeights: RewardWeights;
  sampledThresholds: ThresholdConfig;
  /** The weights after the user profile and context bias: what the episode actually used. */
  appliedWeights: RewardWeights;
  /** The run ended with end_turn, no error, no interrupt. */
  taskCompleted: boolean;
  /** Next prompts within the follow-up window that were not corrections. */
  followUps: number;
  /** Follow-ups that corrected the agent; they count double. */
  corrections: number;
  /** Of the follow-ups, those asking the same question again (the answer did not serve). Absent in older episodes. */
  repeats?: number;
  /** Whether the prompt got prefetched context or, by the learner's choice, none. Absent in older episodes: injected. */
  injectionArm?: InjectionArm;
  toolCalls: number;
  /** Files changed outside the agent's tools between the answer and the next prompt. */
  userEdits: number;
  hedging: boolean;
  prefetchedKeys: string[];
  /** Prefetched keys the answer or a tool call used (cited, or a hint's path read). */
  usedKeys: string[];
  /** Queries the model searched for after the prefetch: starvation. */
  searchedAfter: string[];
  /**
   * Each prefetch of the run: its candidates (with confidences, before any
   * threshold), what the selection had, and which candidates the run
   * needed; with `budgetRatio`, what other thresholds would have injected
   * (`paired-advantage.ts`). Absent in episodes logged before they were recorded.
   */
  prefetchRounds?: PrefetchRound[];
  /** `context.prefetchBudgetRatio` when the episode ran. */
  budgetRatio?: number;
}

export interface PrefetchRound {
  candidates: ScoredCandidate[];
  remainingTokens: number;
  penalty: number;
  /** The focused prefetch's ceiling on the budget, when the agent had one. */
  maxBudgetTokens?: number;
  neededKeys: string[];
}

/**
 * Whether a value read back (a log line) is a whole episode: a line that
 * parses but lacks a field is damage, and must not reach the update.
 */
export function isEpisodeObservation(value: unknown): value is EpisodeObservation {
  if (typeof value !== "object" || value === null) return false;
  const episode = value as Record<string, unknown>;
  const finite = (field: unknown) => typeof field === "number" && Number.isFinite(field);
  const numbers = (group: unknown, keys: readonly string[]) =>
    typeof group === "object" && group !== null && keys.every((key) => finite((group as Record<string, unknown>)[key]));
  const strings = (field: unknown) => Array.isArray(field) && field.every((item) => typeof item === "string");
  const weights = ["taskSuccess", "relevanceBonus", "strugglePenalty", "wastePenalty"] as const;
  return (
    finite(episode.sequence) &&
    finite(episode.timestamp) &&
    typeof episode.contextId === "string" &&
    typeof episode.query === "string" &&
    Array.isArray(episode.queryEmbedding) &&
    episode.queryEmbedding.every(finite) &&
    numbers(episode.sampledWeights, weights) &&
    numbers(episode.appliedWeights, weights) &&
    numbers(episode.sampledThresholds, ["confidence", "excerpt", "budget"]) &&
    typeof episode.taskCompleted === "boolean" &&
    typeof episode.hedging === "boolean" &&
    finite(episode.followUps) &&
    finite(episode.corrections) &&
    finite(episode.toolCalls) &&
    finite(episode.userEdits) &&
    strings(episode.prefetchedKeys) &&
    strings(episode.usedKeys) &&
    strings(episode.searchedAfter) &&
    (episode.prefetchRounds === undefined || (Array.isArray(episode.prefetchRounds) && episode.prefetchRounds.every(isPrefetchRound))) &&
    (episode.budgetRatio === undefined || finite(episode.budgetRatio)) &&
    (episode.repeats === undefined || finite(episode.repeats)) &&
    (episode.injectionArm === undefined || ["inject", "hints", "nothing"].includes(episode.injectionArm as InjectionArm))
  );
}

function isPrefetchRound(value: unknown): value is PrefetchRound {
  if (typeof value !== "object" || value === null) return false;
  const round = value as Record<string, unknown>;
  const finite = (field: unknown) => typeof field === "number" && Number.isFinite(field);
  return (
    finite(round.remainingTokens) &&
    finite(round.penalty) &&
    (round.maxBudgetTokens === undefined || finite(round.maxBudgetTokens)) &&
    Array.isArray(round.neededKeys) &&
    round.neededKeys.every((key) => typeof key === "string") &&
    Array.isArray(round.candidates) &&
    round.candidates.every((candidate) => {
      const c = candidate as Record<string, unknown> | null;
      return (
        c !== null &&
        typeof c === "object" &&
        typeof c.key === "string" &&
        finite(c.confidence) &&
        finite(c.excerptTokens) &&
        finite(c.summaryTokens) &&
        (c.path === undefined || typeof c.path === "string")
      );
    })
  );
}

/** Follow-ups, a correction counting double: it says more plainly that the answer missed. */
function followUpCount(observation: Pick<EpisodeObservation, "followUps" | "corrections">): number {
  return observation.followUps + 2 * observation.corrections;
}

/**
 * How satisfied the user probably was, with each term scaled by its weight relative to
 * the prior mean so the weights can be learned: completion by t / 0.8,
 * searches after prefetch by s / 0.4, unused prefetch by w / 0.1. The
 * relevance bonus (0.05 per used prefetched item) is scaled by r / 0.3 − 1 so
 * that at the prior means it adds nothing to the unweighted function, which
 * has no such term. Can be negative.
 */
export function inferSatisfaction(observation: EpisodeObservation, weights: RewardWeights): number {
  const success = weights.taskSuccess / PRIOR_MEAN_WEIGHTS.taskSuccess;
  const struggle = weights.strugglePenalty / PRIOR_MEAN_WEIGHTS.strugglePenalty;
  const waste = weights.wastePenalty / PRIOR_MEAN_WEIGHTS.wastePenalty;
  const relevance = weights.relevanceBonus / PRIOR_MEAN_WEIGHTS.relevanceBonus - 1;
  const followUp = followUpCount(observation);
  const prefetched = new Set(observation.prefetchedKeys);
  // Only prefetched keys count as used: a key the model found by itself is not the prefetch's merit.
  const used = new Set(observation.usedKeys.filter((key) => prefetched.has(key))).size;

  let score = 0;
  if (observation.taskCompleted && followUp === 0) score += 0.5 * success;
  if (observation.taskCompleted && followUp > 0) score += 0.2 * success;
  score -= followUp * 0.1;
  score -= observation.searchedAfter.length * 0.15 * struggle;
  if (observation.hedging) score -= 0.2;
  if (!observation.taskCompleted) score -= 0.4 * success;
  score -= (prefetched.size - used) * 0.02 * waste;
  score += used * 0.05 * relevance;
  return score;
}

/** The design notes' fixed list; the apostrophe may be typographic. */
const HEDGES = [/\bI['’]m not sure\b/i, /\bI couldn['’]t find\b/i, /\bmight be\b/i, /\bunclear\b/i];

/** True when the answer hedges: the model was uncertain. */
export function detectHedging(text: string): boolean {
  return HEDGES.some((hedge) => hedge.test(text));
}
