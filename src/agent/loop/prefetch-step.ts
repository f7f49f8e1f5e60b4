import { situationOf } from "../../context/prefetch/prefetch-situation.js";
import { renderAugmentation, withoutPresent, type AugmentedQuery, type PrefetchSituation } from "../../context/prefetch/query-augmenter.js";
import type { PrefetchFuture } from "../../context/prefetch/speculative-prefetcher.js";
import type { AgentEvent } from "../agent-events.js";
import type { InjectedContext } from "../session-recorder.js";
import type { AgentLoopDeps } from "./loop-deps.js";

/** How long the loop waits for a speculative prefetch (10 ms: a prefetch not ready by then is not worth delaying the call). */
const PREFETCH_WAIT_MS = 10;

/** Starts looking for what a query (the prompt, or what a tool call is after) will need, while the loop goes on. */
export function startPrefetch(
  deps: Pick<AgentLoopDeps, "prefetcher" | "contextManager" | "recorder">,
  query: string | undefined,
): PrefetchFuture | undefined {
  const { prefetcher, recorder } = deps;
  if (!query || !prefetcher) return undefined;
  return prefetcher.speculative.start(
    query,
    deps.contextManager.remainingTokens(),
    situationOf(recorder.rows(), recorder.sessionId, recorder.currentTurn + 1),
  );
}

/**
 * The first ready prefetch with something to inject that the window does
 * not hold yet, within the wait budget. When none has, the first that
 * scored candidates comes back without `injected`: nothing goes in, but
 * the run's outcome still says which of them it needed (what self-tuning
 * retrieval learns from when it chose, or the thresholds left, nothing to
 * inject).
 */
export async function takePrefetch(
  situation: PrefetchSituation,
  ...futures: Array<PrefetchFuture | undefined>
): Promise<{ augmented: AugmentedQuery; injected?: InjectedContext } | undefined> {
  let scoredOnly: AugmentedQuery | undefined;
  for (const future of futures) {
    const ready = await future?.getIfReady(PREFETCH_WAIT_MS);
    const augmented = ready && withoutPresent(ready, situation);
    if (!augmented) continue;
    if (augmented.excerpts.length + augmented.summaries.length === 0) {
      if ((augmented.scored?.candidates.length ?? 0) > 0) scoredOnly ??= augmented;
      continue;
    }
    const relatedFiles = [...augmented.excerpts, ...augmented.summaries].flatMap((item) => (item.path ? [item.path] : []));
    return { augmented, injected: { text: renderAugmentation(augmented), relatedFiles } };
  }
  return scoredOnly && { augmented: scoredOnly };
}

export function prefetchEvent(turn: number, augmented: AugmentedQuery): AgentEvent {
  return {
    type: "prefetch",
    turn,
    excerpts: augmented.excerpts.map((excerpt) => ({ source: excerpt.source, confidence: excerpt.confidence })),
    hints: augmented.summaries.map((summary) => ({ source: summary.source, confidence: summary.confidence })),
    tokens: augmented.tokensUsed,
    tier: augmented.tierReached,
  };
}
