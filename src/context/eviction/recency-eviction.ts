import type { AgentContext, ContextItem } from "../agent-context.js";
import { oldestFirst, type EvictionStrategy } from "./eviction-strategy.js";

/** Recency eviction (librarian, archivalist): oldest content first. */
export class RecencyEviction implements EvictionStrategy {
  readonly name = "recency";

  selectForEviction(context: AgentContext, targetTokens: number): ContextItem[] {
    return oldestFirst(context.evictable(), targetTokens);
  }
}
