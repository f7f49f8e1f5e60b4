/** The median of `values` (the mean of the middle two for an even count); `values` is not modified. */
export function median(values: ArrayLike<number>): number {
  // A typed array sorts numerically without calling back into a comparator: the changepoint fit's largest cost after its search.
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
