/**
 * A fast token estimate for budgeting and for the store's `token_count`:
 * about four characters a token for English and code (the figure the
 * Anthropic and OpenAI documentation give). Calibrated counters build on it.
 */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}
