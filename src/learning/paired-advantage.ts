import { selectInjection } from "../context/prefetch/injection-selection.js";
import type { InjectionArm } from "./injection-arms.js";
import { retrievalSettingsOf } from "./retrieval-mapping.js";
import { type EpisodeObservation, inferSatisfaction, type RewardWeights, type ThresholdConfig } from "./satisfaction.js";

/** The thresholds whose effect an episode's prefetch records can replay. */
export type ThresholdKey = keyof ThresholdConfig;

/**
 * The paired advantage of one threshold's value (the one the episode ran
 * with unless given; design notes, "What bench-adaptive showed, and the
 * update as it is now"): the satisfaction of the episode with it minus the mean satisfaction the same
 * episode would have had with the threshold at each of `alternatives`, the
 * other parameters as sampled. What would have been injected is the
 * prefetcher's own selection over the recorded candidates; an item
 * injected and not needed is waste, and each needed item left out costs one
 * search more than the run made. Completion, follow-ups and hedging are as
 * observed, so they cancel. Undefined when the episode recorded no prefetch.
 */
export function pairedAdvantage(
  observation: EpisodeObservation,
  key: ThresholdKey,
  alternatives: readonly number[],
  weights: RewardWeights,
  value: number = observation.sampledThresholds[key],
): number | undefined {
  const rounds = observation.prefetchRounds;
  if (!rounds || rounds.length === 0 || alternatives.length === 0) return undefined;
  const injectedWith = (thresholds: ThresholdConfig) => injectedUnder(observation, thresholds);
  const asRun = injectedWith(observation.sampledThresholds);
  const actual = satisfactionWithInjected(observation, injectedWith({ ...observation.sampledThresholds, [key]: value }), asRun, weights);
  let total = 0;
  for (const value of alternatives)
    total += satisfactionWithInjected(observation, injectedWith({ ...observation.sampledThresholds, [key]: value }), asRun, weights);
  return actual - total / alternatives.length;
}

/** What each recorded prefetch of the episode would have injected with these thresholds (the episode's weights as applied) and arm (injecting, unless given). */
export function injectedUnder(observation: EpisodeObservation, thresholds: ThresholdConfig, arm: InjectionArm = "inject"): Set<string>[] {
  return selectedUnder(observation, thresholds, arm).map((round) => new Set([...round.excerpts, ...round.hints]));
}

/** The same, each prefetch's selection kept apart as excerpts and hints. */
export function selectedUnder(
  observation: EpisodeObservation,
  thresholds: ThresholdConfig,
  arm: InjectionArm = "inject",
): Array<{ excerpts: Set<string>; hints: Set<string> }> {
  const settings = retrievalSettingsOf(
    { appliedWeights: observation.appliedWeights, sampledThresholds: thresholds, injectionArm: arm },
    observation.budgetRatio ?? 0.1,
  );
  return (observation.prefetchRounds ?? []).map((round) => {
    // A focused prefetch's ceiling held for every draw, as it did for the run.
    const ceiling = round.maxBudgetTokens !== undefined ? { maxBudgetTokens: round.maxBudgetTokens } : {};
    const chosen = selectInjection(round.candidates, { ...settings, ...ceiling }, round.remainingTokens, round.penalty);
    return {
      excerpts: new Set(chosen.excerpts.map((candidate) => candidate.key)),
      hints: new Set(chosen.summaries.map((candidate) => candidate.key)),
    };
  });
}

/**
 * The satisfaction the episode would have had had each recorded prefetch
 * injected `injected` instead of `reference` (what the searches the run made
 * were measured against): an item injected and not needed is waste, a needed
 * item left out of every prefetch of the run costs one search more, one put
 * in spares one. Everything else is as observed.
 */
export function satisfactionWithInjected(
  observation: EpisodeObservation,
  injected: readonly Set<string>[],
  reference: readonly Set<string>[],
  weights: RewardWeights,
): number {
  const rounds = observation.prefetchRounds ?? [];
  const needed = new Set(rounds.flatMap((round) => round.neededKeys));
  // A needed item counts once however many of the run's prefetches had it: put in by any of them, it spared the search.
  const missed = (sets: readonly Set<string>[]) => [...needed].filter((key) => !sets.some((keys) => keys.has(key))).length;
  const prefetched = [...new Set(injected.flatMap((keys) => [...keys]))];
  const searches = Math.max(0, observation.searchedAfter.length + missed(injected) - missed(reference));
  return inferSatisfaction(
    {
      ...observation,
      prefetchedKeys: prefetched,
      usedKeys: prefetched.filter((candidate) => needed.has(candidate)),
      searchedAfter: Array.from({ length: searches }, (_, index) => observation.searchedAfter[index] ?? "(search)"),
    },
    weights,
  );
}
