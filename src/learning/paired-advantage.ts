import { selectInjection } from "../context/prefetch/injection-selection.js";
import { retrievalSettingsOf } from "./retrieval-mapping.js";
import { type EpisodeObservation, inferSatisfaction, type RewardWeights, type ThresholdConfig } from "./satisfaction.js";

/** The thresholds whose effect an episode's prefetch records can replay. */
export type ThresholdKey = keyof ThresholdConfig;

/**
 * The paired advantage of one threshold's sampled value (design notes,
 * "What bench-adaptive showed, and the update as it is now"): the
 * satisfaction of the episode as it ran minus the mean satisfaction the same
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
): number | undefined {
  const rounds = observation.prefetchRounds;
  if (!rounds || rounds.length === 0 || alternatives.length === 0) return undefined;
  const budgetRatio = observation.budgetRatio ?? 0.1;
  const injectedWith = (thresholds: ThresholdConfig) => {
    const settings = retrievalSettingsOf({ appliedWeights: observation.appliedWeights, sampledThresholds: thresholds }, budgetRatio);
    return rounds.map((round) => {
      // A focused prefetch's ceiling held for every draw, as it did for the run.
      const ceiling = round.maxBudgetTokens !== undefined ? { maxBudgetTokens: round.maxBudgetTokens } : {};
      const chosen = selectInjection(round.candidates, { ...settings, ...ceiling }, round.remainingTokens, round.penalty);
      return new Set([...chosen.excerpts, ...chosen.summaries].map((candidate) => candidate.key));
    });
  };
  const missed = (injected: Set<string>[]) =>
    rounds.reduce((total, round, index) => total + round.neededKeys.filter((needed) => !injected[index]?.has(needed)).length, 0);
  const asRun = injectedWith(observation.sampledThresholds);
  const missedAsRun = missed(asRun);
  const satisfactionWith = (injected: Set<string>[]) => {
    const prefetched = injected.flatMap((keys) => [...keys]);
    const needed = new Set(rounds.flatMap((round) => round.neededKeys));
    const searches = Math.max(0, observation.searchedAfter.length + missed(injected) - missedAsRun);
    return inferSatisfaction(
      {
        ...observation,
        prefetchedKeys: prefetched,
        usedKeys: prefetched.filter((candidate) => needed.has(candidate)),
        searchedAfter: Array.from({ length: searches }, (_, index) => observation.searchedAfter[index] ?? "(search)"),
      },
      weights,
    );
  };
  const actual = satisfactionWith(asRun);
  let total = 0;
  for (const value of alternatives) total += satisfactionWith(injectedWith({ ...observation.sampledThresholds, [key]: value }));
  return actual - total / alternatives.length;
}
