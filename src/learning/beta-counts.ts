/** Beta counts (successes, failures) that fade: the beliefs of `InjectionArms` about rates (trouble, hedged answers). */

/** The counts forget toward `prior`, keeping `memory` of their distance from it. */
export function decay(counts: [number, number], prior: readonly [number, number], memory: number): void {
  counts[0] = prior[0] + memory * (counts[0] - prior[0]);
  counts[1] = prior[1] + memory * (counts[1] - prior[1]);
}

/**
 * The counts lose weight at `memory` per episode, down to the prior's, and
 * keep the rate their evidence showed: an arm not played grows less sure of
 * its trouble, not surer that it has none. Forgetting toward the prior's
 * rate (one in twenty) made an arm a user corrects every time look
 * trouble-free again within a few dozen episodes, and it was played again
 * at that rate for good.
 */
export function forget(counts: [number, number], prior: readonly [number, number], memory: number): void {
  const rate = betaMean(counts);
  const weight = prior[0] + prior[1];
  counts[0] = rate * weight + memory * (counts[0] - rate * weight);
  counts[1] = (1 - rate) * weight + memory * (counts[1] - (1 - rate) * weight);
}

export const betaMean = ([alpha, beta]: readonly [number, number]) => alpha / (alpha + beta);
