import type { AgentContext, ContextItem } from "../agent-context.js";

/**
 * `EvictionStrategy`: which items leave the window to free at least
 * `targetTokens`. Preserved types and recent turns are never offered
 * (`AgentContext.evictable`). Selection needs no model call.
 */
export interface EvictionStrategy {
  readonly name: string;
  selectForEviction(context: AgentContext, targetTokens: number): ContextItem[];
}

/** Oldest first until the target is met (shared by the recency strategy and the task fallback). */
export function oldestFirst(
  items: readonly ContextItem[],
  targetTokens: number,
  exclude: ReadonlySet<ContextItem> = new Set(),
): ContextItem[] {
  const selected: ContextItem[] = [];
  let freed = 0;
  for (const item of [...items].sort((a, b) => a.firstTurn - b.firstTurn)) {
    if (freed >= targetTokens) break;
    if (exclude.has(item)) continue;
    selected.push(item);
    freed += item.tokens;
  }
  return selected;
}
