import type { AugmentedQuery, Excerpt } from "./query-augmenter.js";

/** Tokens a search round trip costs the model when prefetch did not spare it (an estimate: a search call and its result). */
const TOKENS_PER_AVOIDED_SEARCH = 500;

/** One prefetch's outcome: what was injected, and what of it the answer or a tool call used. */
export interface PrefetchOutcome {
  prefetch: AugmentedQuery;
  /** Keys of every excerpt and hint injected. */
  injectedKeys: string[];
  /** Keys of the excerpts the answer cited and the hints a tool call expanded. */
  usedKeys: string[];
  /** The excerpts used, with their content (what the hot cache is given). */
  usedExcerpts: Excerpt[];
  /**
   * Keys the run needed: those used, and candidates left out whose path the
   * run read or cited anyway (the model went and got them itself).
   */
  neededKeys: string[];
}

/**
 * The feedback loop: how prefetch is doing. An excerpt counts as used
 * when the answer cites its source (or quotes a line of it); a hint counts as
 * expanded when a later tool call reads its path. Listeners hear each
 * outcome: the hot cache's promotion and self-tuning retrieval's episodes.
 */
export class PrefetchMetrics {
  totalPrefetches = 0;
  excerptsInjected = 0;
  excerptsUsed = 0;
  summariesInjected = 0;
  summariesExpanded = 0;
  tokensSaved = 0;
  tokensInjected = 0;
  private readonly listeners: Array<(outcome: PrefetchOutcome) => void> = [];

  onOutcome(listener: (outcome: PrefetchOutcome) => void): void {
    this.listeners.push(listener);
  }

  recordOutcome(prefetch: AugmentedQuery, response: string, toolCallTargets: readonly string[]): PrefetchOutcome {
    this.totalPrefetches++;
    this.tokensInjected += prefetch.tokensUsed;
    const usedExcerpts = prefetch.excerpts.filter(
      (excerpt) =>
        response.includes(excerpt.path ?? excerpt.source) ||
        excerpt.content.split("\n").some((line) => line.trim().length > 20 && response.includes(line.trim())),
    );
    const readByTool = (path: string | undefined) => path !== undefined && toolCallTargets.some((target) => target.includes(path));
    const expanded = prefetch.summaries.filter((summary) => readByTool(summary.path));
    this.excerptsInjected += prefetch.excerpts.length;
    this.excerptsUsed += usedExcerpts.length;
    this.summariesInjected += prefetch.summaries.length;
    this.summariesExpanded += expanded.length;
    this.tokensSaved += usedExcerpts.length * TOKENS_PER_AVOIDED_SEARCH;
    const injectedKeys = [...prefetch.excerpts, ...prefetch.summaries].map((item) => item.key);
    const usedKeys = [...usedExcerpts, ...expanded].map((item) => item.key);
    const injected = new Set(injectedKeys);
    const fetchedAnyway = (prefetch.scored?.candidates ?? []).filter(
      (candidate) =>
        !injected.has(candidate.key) && candidate.path !== undefined && (response.includes(candidate.path) || readByTool(candidate.path)),
    );
    const outcome: PrefetchOutcome = {
      prefetch,
      injectedKeys,
      usedKeys,
      usedExcerpts,
      neededKeys: [...usedKeys, ...fetchedAnyway.map((candidate) => candidate.key)],
    };
    for (const listener of this.listeners) listener(outcome);
    return outcome;
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
