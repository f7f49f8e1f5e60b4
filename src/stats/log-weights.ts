/** Weights kept as logarithms: normalised without overflow, and their sum taken in log space. */

/** exp of the logs, scaled to sum to 1. */
export function normalised(logs: ArrayLike<number>): Float64Array {
  let top = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < logs.length; index++) top = Math.max(top, logs[index] as number);
  const weights = new Float64Array(logs.length);
  let total = 0;
  for (let index = 0; index < logs.length; index++) {
    weights[index] = Math.exp((logs[index] as number) - top);
    total += weights[index] as number;
  }
  for (let index = 0; index < weights.length; index++) weights[index] = (weights[index] as number) / total;
  return weights;
}

/** log of the sum of exp(logs): a likelihood summed over states whose prior weights are already in the logs. */
export function logSumExp(logs: ArrayLike<number>): number {
  let top = Number.NEGATIVE_INFINITY;
  for (let index = 0; index < logs.length; index++) top = Math.max(top, logs[index] as number);
  if (top === Number.NEGATIVE_INFINITY) return top;
  let total = 0;
  for (let index = 0; index < logs.length; index++) total += Math.exp((logs[index] as number) - top);
  return top + Math.log(total);
}
