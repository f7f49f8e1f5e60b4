// Types of scripts/lib/adaptive-users.mjs (plain JS, run by node without a build), for the tests that import it.

export function mean(values: readonly number[]): number;
export function standardDeviation(values: readonly number[]): number;
export function pairedDifference(a: readonly number[], b: readonly number[]): { mean: number; twoStandardErrors: number; sd: number };
