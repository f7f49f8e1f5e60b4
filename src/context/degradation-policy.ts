/** What a policy sees before each model call. */
export interface ContextState {
  /** Tokens the request would take (system, tools, messages, output reserve). */
  usedTokens: number;
  windowTokens: number;
  currentTurn: number;
}

export interface EvictionDecision {
  evict: boolean;
  /** Tokens to free when evicting. */
  targetTokens: number;
}

/**
 * When the window evicts on its own: the token-usage policy, the safety
 * net that holds whatever the learned curve says. (Where the handoff
 * controller's curve predicts that quality degrades, a knowledge agent's
 * further eviction comes as its plan, applied by the agent loop.) Either
 * way, eviction needs no model call, so it cannot deadlock the way
 * compaction does ("conversation too long").
 */
export interface DegradationPolicy {
  decide(state: ContextState): EvictionDecision;
}

export class TokenUsagePolicy implements DegradationPolicy {
  constructor(
    private readonly evictAtRatio: number,
    private readonly evictToRatio: number,
  ) {
    if (!(evictToRatio < evictAtRatio)) throw new RangeError("evictToRatio must be smaller than evictAtRatio");
  }

  decide(state: ContextState): EvictionDecision {
    if (state.usedTokens <= state.windowTokens * this.evictAtRatio) return { evict: false, targetTokens: 0 };
    return { evict: true, targetTokens: Math.ceil(state.usedTokens - state.windowTokens * this.evictToRatio) };
  }
}
