import { estimateTokens } from "../tokens/estimate-tokens.js";

/** Counts tokens for budgeting. Exact counts come from the API's usage; this is the estimate between calls. */
export interface TokenCounter {
  count(text: string): number;
  /** Teaches the estimate: what was estimated for a request, and what the API says it took. */
  calibrate(estimated: number, actual: number): void;
}

const MIN_RATIO = 0.5;
const MAX_RATIO = 3;
const SMOOTHING = 0.3;

/**
 * Characters/4, corrected by the ratio of actual to estimated input tokens
 * the API reported for earlier requests (an exponential moving average, so
 * it follows the model's tokenizer and the project's mix of code and prose).
 */
export class CalibratedTokenCounter implements TokenCounter {
  private ratio = 1;

  get correction(): number {
    return this.ratio;
  }

  count(text: string): number {
    return Math.ceil(estimateTokens(text) * this.ratio);
  }

  calibrate(estimated: number, actual: number): void {
    if (estimated <= 0 || actual <= 0) return;
    const observed = Math.min(MAX_RATIO, Math.max(MIN_RATIO, (actual / estimated) * this.ratio));
    this.ratio = this.ratio + SMOOTHING * (observed - this.ratio);
  }
}
