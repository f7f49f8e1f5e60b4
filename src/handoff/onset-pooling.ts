import type { ProfileStatistics } from "./handoff-profile.js";

/**
 * How hard a (type, model)'s onset is pulled toward its type's: the pooling's
 * pseudo-count for the onset, chosen from the data (empirical Bayes) instead
 * of the fixed k the other parameters use (docs/DESIGN-NOTES.md, "What is
 * learned").
 *
 * In a two-level normal model a session's onset is x ~ N(θ, σ²) about its
 * (type, model)'s mean θ, and the type's models' means are θ ~ N(μ, τ²):
 * the posterior mean of θ after n sessions is (n x̄ + k μ) / (n + k) with
 * k = σ² / τ². The models of one type differ far more than the sessions of
 * one model do (10–40 % of the window against ~10 % in the simulator), so
 * k is well under 1, and a fixed k = 3 pulled a model's onset toward
 * another model's for its first dozens of sessions: the new session's first
 * instance started from a prior centred where its onset was not.
 *
 * σ² is the spread within each (type, model) about its own mean (the
 * estimates' error taken out, as `estimateOnset` does), pooled over every
 * (type, model) there is; τ² the spread of the type's models' means about
 * their average, less what σ² alone puts there (method of moments). Only
 * located onsets count here: censored bounds move the mean through the EM
 * of `estimateOnset`, not this choice of k.
 */

/**
 * A floor under k: a handful of models' means say roughly how far apart they
 * lie, and a type whose means happen to scatter widely must not leave a
 * model's first session wholly on its own.
 */
const MIN_PSEUDO_COUNT = 0.1;
/** σ² needs this many degrees of freedom (sessions beyond each group's first) before it is trusted. */
const MIN_WITHIN_FREEDOM = 4;

export interface OnsetGroup {
  /** Located onsets of one (type, model), summed over its rows. */
  count: number;
  sum: number;
  sumSquares: number;
  errorSquares: number;
}

/** The located onsets of each (type, model) among `rows` (several rows of one pair are summed). */
export function onsetGroups(
  rows: ReadonlyArray<{ agentType: string; model: string; statistics: ProfileStatistics }>,
): Array<OnsetGroup & { agentType: string }> {
  const groups = new Map<string, OnsetGroup & { agentType: string }>();
  for (const { agentType, model, statistics } of rows) {
    const key = JSON.stringify([agentType, model]);
    const group = groups.get(key) ?? { agentType, count: 0, sum: 0, sumSquares: 0, errorSquares: 0 };
    group.count += statistics.onset.count;
    group.sum += statistics.onset.sum;
    group.sumSquares += statistics.onset.sumSquares;
    group.errorSquares += statistics.onsetErrorSquares;
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * k = σ² / τ² for the models of one type (`siblings`, each a (type, model)
 * group), σ² pooled over `every` group; `fallback` (the fixed k) where the
 * data cannot say: too few sessions within groups, fewer than two models
 * with onsets, or means no farther apart than σ² explains. Clamped to
 * [MIN_PSEUDO_COUNT, fallback]: never pooled harder than the other parameters.
 */
export function onsetPseudoCount(siblings: ReadonlyArray<OnsetGroup>, every: ReadonlyArray<OnsetGroup>, fallback: number): number {
  let withinSquares = 0;
  let freedom = 0;
  for (const group of every) {
    if (group.count < 2) continue;
    const mean = group.sum / group.count;
    // E[Σ(x − x̄)²] = (n − 1)(σ² + e²): the estimates' error, a share (n − 1)/n of their Σe², is not the sessions' spread.
    const spread = group.sumSquares - group.count * mean * mean - (group.errorSquares * (group.count - 1)) / group.count;
    withinSquares += Math.max(spread, 0);
    freedom += group.count - 1;
  }
  if (freedom < MIN_WITHIN_FREEDOM) return fallback;
  const within = withinSquares / freedom;
  const located = siblings.filter((group) => group.count > 0);
  if (located.length < 2 || !(within > 0)) return fallback;
  const means = located.map((group) => group.sum / group.count);
  const average = means.reduce((total, mean) => total + mean, 0) / means.length;
  const spreadOfMeans = means.reduce((total, mean) => total + (mean - average) ** 2, 0) / (means.length - 1);
  const noiseOfMeans = located.reduce((total, group) => total + within / group.count, 0) / located.length;
  const between = spreadOfMeans - noiseOfMeans;
  if (!(between > 0)) return fallback;
  return Math.min(fallback, Math.max(MIN_PSEUDO_COUNT, within / between));
}
