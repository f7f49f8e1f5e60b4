// Types of scripts/lib/memory-coverage.mjs (plain JS, run by node without a build), for the tests that import it.

type Estimate = (text: string) => number;

export function normalise(text: string): string;
export function contentWords(text: string, stopWords: ReadonlySet<string>): Set<string>;
export function answerWords(answer: string | number, speakers: readonly string[], stopWords: ReadonlySet<string>): Set<string>;
export function answerBearing(sentences: readonly string[], words: ReadonlySet<string>, stopWords: ReadonlySet<string>): string[];
export function holdsAny(context: string, sentences: readonly string[]): boolean;
export function contextTokens(text: string, estimateTokens: Estimate): number;
export function recentWithin(units: readonly string[], budget: number, estimateTokens: Estimate): string[];
export function everyKthWithin(units: readonly string[], budget: number, estimateTokens: Estimate): string[];
export function seededRandom(seed: number): () => number;
export function randomWithin(units: readonly string[], budget: number, estimateTokens: Estimate, seed: number): string[];
