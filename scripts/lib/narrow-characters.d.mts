// Types of scripts/lib/narrow-characters.mjs (plain JS, run by node without a build), for the tests that import it.

export function narrowCodePoints(stringWidth: (text: string) => number): number[];
export function narrowTextPattern(codePoints: readonly number[]): string;
