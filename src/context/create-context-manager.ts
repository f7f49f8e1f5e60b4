import type { ContextConfig } from "../config/schema.js";
import { evictionStrategyOf, type AgentType, type EvictionStrategyName } from "../roles/agent-types.js";
import type { UniversalContentStore } from "../content-store/universal-content-store.js";
import { HashingEmbedder } from "../embedding/hashing-embedder.js";
import type { TokenCounter } from "../llm/token-counter.js";
import type { ContentType } from "../store/content-types.js";
import { textTermCounts } from "../parsing/term-counts.js";
import { TokenUsagePolicy } from "./degradation-policy.js";
import type { EvictionStrategy } from "./eviction/eviction-strategy.js";
import { RecencyEviction } from "./eviction/recency-eviction.js";
import { TaskCompletionEviction } from "./eviction/task-completion-eviction.js";
import { TopicClusterEviction } from "./eviction/topic-cluster-eviction.js";
import { VirtualContextManager, type VirtualContextManagerDeps } from "./virtual-context-manager.js";

/**
 * Each strategy with the content type its
 * agents keep (librarian/archivalist keep user prompts, academic keeps
 * research papers, architect keeps plans).
 */
export function evictionConfigFor(strategy: EvictionStrategyName): { strategy: EvictionStrategy; preserveTypes: ContentType[] } {
  switch (strategy) {
    case "recency":
      return { strategy: new RecencyEviction(), preserveTypes: ["user_prompt"] };
    case "topic": {
      const embedder = new HashingEmbedder();
      return {
        strategy: new TopicClusterEviction((text) => embedder.embedCounts(textTermCounts(text))),
        preserveTypes: ["research_paper"],
      };
    }
    case "task":
      return { strategy: new TaskCompletionEviction(), preserveTypes: ["plan_workflow"] };
  }
}

export function createContextManager(deps: {
  config: ContextConfig;
  contentStore: UniversalContentStore;
  tokenCounter: TokenCounter;
  windowTokens: number;
  /** The agent whose window it is: its type picks the eviction strategy unless `context.strategy` does. */
  agentType: AgentType;
  /** Told before each eviction is written (the `PreEvict` hooks). */
  beforeEvict?: VirtualContextManagerDeps["beforeEvict"];
}): VirtualContextManager {
  const { strategy, preserveTypes } = evictionConfigFor(deps.config.strategy ?? evictionStrategyOf(deps.agentType));
  return new VirtualContextManager({
    contentStore: deps.contentStore,
    tokenCounter: deps.tokenCounter,
    // The safety net: the learned curve's evictions come as the handoff controller's plan, which the agent loop applies.
    policy: new TokenUsagePolicy(deps.config.evictAtRatio, deps.config.evictToRatio),
    strategy,
    windowTokens: deps.windowTokens,
    preserveRecentTurns: deps.config.preserveRecentTurns,
    preserveTypes,
    ...(deps.beforeEvict ? { beforeEvict: deps.beforeEvict } : {}),
  });
}
