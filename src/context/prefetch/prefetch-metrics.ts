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
 * The feedback loop: how prefetch is doing. Each kind of injected item has
 * its own sign of use (`usedItems`). Listeners hear each outcome: the hot
 * cache's promotion and self-tuning retrieval's episodes.
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

  /** `toolCallTargets`: each tool call's input as JSON. */
  recordOutcome(prefetch: AugmentedQuery, response: string, toolCallTargets: readonly string[]): PrefetchOutcome {
    this.totalPrefetches++;
    this.tokensInjected += prefetch.tokensUsed;
    const { usedExcerpts, expanded, readByTool } = usedItems(prefetch, response, toolCallTargets);
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

/**
 * What of one prefetch the run used, each kind by the sign that fits it:
 * - an excerpt: the answer cites its source or quotes a line of it;
 * - a file hint: a tool call reads its path;
 * - a conversation entry, excerpt or hint: the answer cites it or quotes its
 *   line, or a tool call brings it back (`retrieve_context` naming its entry,
 *   `get_turn_range` over its turn of the running session). Its hint has no
 *   path to read, so without these it could never count as used, and every
 *   learner would see it as waste;
 * - any other hint: the answer cites or quotes it.
 */
function usedItems(prefetch: AugmentedQuery, response: string, toolCallTargets: readonly string[]) {
  const readByTool = (path: string | undefined) => path !== undefined && toolCallTargets.some((target) => target.includes(path));
  const inputs = toolCallTargets.map(parseInput);
  const broughtBack = (item: { entryId?: string; turn?: number }) =>
    item.entryId !== undefined &&
    (toolCallTargets.some((target) => target.includes(item.entryId as string)) ||
      (item.turn !== undefined && inputs.some((input) => coversTurn(input, item.turn as number))));
  // A line cut short (a hint's description ends in "…") is quoted up to its last whole word.
  const quotes = (text: string) =>
    text.split("\n").some((line) => {
      const quoted = line.trim().replace(/\s*\S*…$/, "");
      return quoted.length > 20 && response.includes(quoted);
    });
  const usedExcerpts = prefetch.excerpts.filter(
    (excerpt) => response.includes(excerpt.path ?? excerpt.source) || quotes(excerpt.content) || broughtBack(excerpt),
  );
  const expanded = prefetch.summaries.filter((summary) =>
    summary.path !== undefined
      ? readByTool(summary.path)
      : response.includes(summary.source) || quotes(summary.description) || broughtBack(summary),
  );
  return { usedExcerpts, expanded, readByTool };
}

/** A tool call's input, or nothing when it is not a JSON object. */
function parseInput(target: string): Record<string, unknown> | undefined {
  try {
    const input: unknown = JSON.parse(target);
    return typeof input === "object" && input !== null ? (input as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `get_turn_range`'s input, reaching over `turn`. */
function coversTurn(input: Record<string, unknown> | undefined, turn: number): boolean {
  const { from_turn: from, to_turn: to } = input ?? {};
  return typeof from === "number" && typeof to === "number" && from <= turn && turn <= to;
}
