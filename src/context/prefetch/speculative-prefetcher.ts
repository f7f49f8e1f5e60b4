import type { AugmentedQuery, PrefetchSituation, QueryAugmenter } from "./query-augmenter.js";

/** A prefetch already running; the loop takes its result only if it is ready in time. */
export class PrefetchFuture {
  private result: AugmentedQuery | undefined;
  private readonly done: Promise<void>;

  constructor(work: Promise<AugmentedQuery>) {
    this.done = work.then(
      (result) => {
        this.result = result;
      },
      () => undefined, // a failed prefetch is no prefetch
    );
  }

  /** The result if it arrives within the budget, otherwise nothing (the loop goes on without). */
  async getIfReady(budgetMs: number): Promise<AugmentedQuery | undefined> {
    if (this.result) return this.result;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, budgetMs);
    });
    await Promise.race([this.done, timeout]);
    clearTimeout(timer);
    return this.result;
  }
}

/**
 * Speculative prefetch: start as soon as a query or a
 * tool call is known, race against the need; never make the loop wait more
 * than its budget.
 */
export class SpeculativePrefetcher {
  private enabled = true;

  constructor(private readonly augmenter: QueryAugmenter) {}

  /** Off under high memory pressure: a speculative search is the first thing to give up. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  start(query: string, remainingTokens: number, situation: PrefetchSituation): PrefetchFuture | undefined {
    if (!this.enabled) return undefined;
    // Start on the next tick so the caller's own work overlaps the search.
    return new PrefetchFuture(
      new Promise<AugmentedQuery>((resolve, reject) => {
        setImmediate(() => this.augmenter.augment(query, remainingTokens, situation).then(resolve, reject));
      }),
    );
  }
}
