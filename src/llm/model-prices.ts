import type { Usage } from "./model-types.js";

/** List prices in US dollars per million tokens. */
interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const anthropic = (input: number, output: number): Prices => ({ input, output, cacheRead: input * 0.1, cacheWrite: input * 1.25 });
const openai = (input: number, output: number, cachedInput: number): Prices => ({
  input,
  output,
  cacheRead: cachedInput,
  cacheWrite: input,
});

/**
 * Published list prices of model families, most specific first. An
 * estimate: batch, regional and negotiated prices differ, and a model not
 * listed has no estimate rather than a guessed one.
 */
const KNOWN_PRICES: ReadonlyArray<[RegExp, Prices]> = [
  [/^claude-(3-)?opus-4-[01]|^claude-opus-4(-\d{8})?$|^claude-3-opus/, anthropic(15, 75)],
  [/^claude-opus/, anthropic(5, 25)],
  [/^claude-(3-5-|3-7-)?sonnet|^claude-sonnet/, anthropic(3, 15)],
  [/^claude-3-5-haiku/, anthropic(0.8, 4)],
  [/^claude-3-haiku/, anthropic(0.25, 1.25)],
  [/^claude-haiku/, anthropic(1, 5)],
  [/^gpt-4o-mini/, openai(0.15, 0.6, 0.075)],
  [/^gpt-4o/, openai(2.5, 10, 1.25)],
  [/^gpt-4\.1-mini/, openai(0.4, 1.6, 0.1)],
  [/^gpt-4\.1/, openai(2, 8, 0.5)],
  [/^gpt-5-mini/, openai(0.25, 2, 0.025)],
  [/^gpt-5/, openai(1.25, 10, 0.125)],
  [/^o3/, openai(2, 8, 0.5)],
];

/** What this usage costs at the model's list prices, in dollars; undefined for a model without known prices. */
export function estimateCost(model: string, usage: Usage): number | undefined {
  const prices = KNOWN_PRICES.find(([pattern]) => pattern.test(model))?.[1];
  if (!prices) return undefined;
  return (
    (usage.inputTokens * prices.input +
      usage.outputTokens * prices.output +
      usage.cacheReadTokens * prices.cacheRead +
      usage.cacheWriteTokens * prices.cacheWrite) /
    1_000_000
  );
}

/** Dollars as a status line shows them: `$0.0042`, `$0.42`, `$12.30`. */
export function formatDollars(amount: number): string {
  if (amount > 0 && amount < 0.01) return `$${amount.toFixed(4)}`;
  return `$${amount.toFixed(2)}`;
}
