import { formatCount } from "../../format/numbers.js";
import { estimateCost } from "../../llm/model-prices.js";
import { addUsage, type ModelProvider } from "../../llm/model-types.js";
import type { AgentViewState } from "../agent-state.js";

/**
 * The window the session works with, as the status line and `/status` show
 * it: the one the engine reported, else the configured one, else the model's.
 */
export function windowTokensOf(
  state: Pick<AgentViewState, "windowTokens">,
  configured: number | undefined,
  provider: ModelProvider,
): number {
  return state.windowTokens ?? configured ?? provider.contextWindow;
}

/** What this screen's model calls (its sub-agents' included) cost at list prices, when the model's price is known. */
export function costSoFar(state: Pick<AgentViewState, "usage" | "subagentUsage">, provider: ModelProvider): number | undefined {
  return estimateCost(provider.model, addUsage(state.usage, state.subagentUsage));
}

/** The model in one phrase: its name, provider and window, or why there is none. */
export function modelDescription(provider: ModelProvider | undefined): string {
  return provider
    ? `${provider.model} (${provider.name}), a ${formatCount(provider.contextWindow)}-token context window`
    : "none configured, so answers come from the index (set ANTHROPIC_API_KEY, or configure a provider in .sylkrc)";
}
