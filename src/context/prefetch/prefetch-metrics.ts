import type { AugmentedQuery } from "./query-augmenter.js";

/** Tokens a search round trip costs the model when prefetch did not spare it (seed estimate). */
const TOKENS_PER_AVOIDED_SEARCH = 500;

/**
 * Seed 002 "Feedback Loop": how prefetch is doing. An excerpt counts as used
 * when the answer cites its source (or quotes a line of it); a hint counts as
 * expanded when a later tool call reads its path.
 */
export class PrefetchMetrics {
  totalPrefetches = 0;
  excerptsInjected = 0;
  excerptsUsed = 0;
  summariesInjected = 0;
  summariesExpanded = 0;
  tokensSaved = 0;
  tokensInjected = 0;

  recordOutcome(prefetch: AugmentedQuery, response: string, toolCallTargets: readonly string[]): void {
    this.totalPrefetches++;
    this.tokensInjected += prefetch.tokensUsed;
    let used = 0;
    for (const excerpt of prefetch.excerpts) {
      this.excerptsInjected++;
      const cited = response.includes(excerpt.path ?? excerpt.source) || excerpt.content.split("\n").some((line) => line.trim().length > 20 && response.includes(line.trim()));
      if (cited) used++;
    }
    this.excerptsUsed += used;
    for (const summary of prefetch.summaries) {
      this.summariesInjected++;
      if (summary.path && toolCallTargets.some((target) => target.includes(summary.path as string))) this.summariesExpanded++;
    }
    this.tokensSaved += used * TOKENS_PER_AVOIDED_SEARCH;
  }

  snapshot() {
    return {
      totalPrefetches: this.totalPrefetches,
      excerptsInjected: this.excerptsInjected,
      excerptsUsed: this.excerptsUsed,
      summariesInjected: this.summariesInjected,
      summariesExpanded: this.summariesExpanded,
      tokensInjected: this.tokensInjected,
      tokensSaved: this.tokensSaved,
    };
  }
}
