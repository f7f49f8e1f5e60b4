// What the benchmarks that set builds or paths side by side share: the order
// of each round, and the median of a figure over the rounds.

/** `items` in a round's order: as given in even rounds, reversed in odd ones (A B, B A, …), so that none always runs first. */
export const inTurn = (items, round) => (round % 2 === 0 ? items : [...items].reverse());

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
