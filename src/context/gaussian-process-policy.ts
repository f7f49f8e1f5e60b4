import type { ContextState, DegradationPolicy, EvictionDecision } from "./degradation-policy.js";

/** What the policy asks the handoff controller before a model call. */
export interface DegradationCheckSource {
  /** Whether the learned curve says quality is about to degrade at this many tokens in the window (recorded when it fires). */
  firesAt(contextTokens: number, turn: number): boolean;
  /** Where eviction should bring the window back to: the learned `OptimalPreparedSize`. */
  targetContextTokens(): number;
}

/**
 * Seed 002: knowledge agents evict when the GP detects degradation, and
 * the instance continues. The token policy stays beneath as the safety
 * net (the window is a hard bound whatever the GP says). The GP is asked
 * once per model call: after it fires, the context manager's further
 * rounds in the same call follow the token policy alone.
 */
export class GaussianProcessPolicy implements DegradationPolicy {
  private askedForTurn = -1;

  constructor(
    private readonly source: DegradationCheckSource,
    private readonly safetyNet: DegradationPolicy,
    /** Tokens of the request kept for the answer, which the window's "context" does not include. */
    private readonly reservedTokens: () => number,
  ) {}

  decide(state: ContextState): EvictionDecision {
    const safety = this.safetyNet.decide(state);
    if (safety.evict || this.askedForTurn === state.currentTurn) return safety;
    this.askedForTurn = state.currentTurn;
    const contextTokens = Math.max(0, state.usedTokens - this.reservedTokens());
    if (!this.source.firesAt(contextTokens, state.currentTurn)) return safety;
    const target = contextTokens - this.source.targetContextTokens();
    return target > 0 ? { evict: true, targetTokens: target } : safety;
  }
}
