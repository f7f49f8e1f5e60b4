import type { AgentContext, ContextItem } from "../agent-context.js";
import { oldestFirst, type EvictionStrategy } from "./eviction-strategy.js";

const COMPLETION_SIGNALS = ["task complete", "workflow complete", "plan approved"];

interface TaskGroup {
  items: ContextItem[];
  tokens: number;
  lastTurn: number;
  completed: boolean;
}

/**
 * Task-completion eviction (architect): finished tasks go first,
 * oldest first, then recency for whatever is still needed. A task is a
 * prompt and the work that followed it; it is complete when completion
 * phrases (`COMPLETION_SIGNALS`) appear, or when the model answered it (an answer ends
 * the prompt's work in a coding session).
 */
export class TaskCompletionEviction implements EvictionStrategy {
  readonly name = "task";

  selectForEviction(context: AgentContext, targetTokens: number): ContextItem[] {
    const evictable = new Set(context.evictable());
    const completed = groupByTask(context.items)
      .filter((task) => task.completed)
      .sort((a, b) => a.lastTurn - b.lastTurn);
    const selected: ContextItem[] = [];
    let freed = 0;
    for (const task of completed) {
      if (freed >= targetTokens) break;
      // A task is evicted whole or not at all (its parts that may be evicted).
      const parts = task.items.filter((item) => evictable.has(item));
      if (parts.length !== task.items.length) continue;
      selected.push(...parts);
      freed += task.tokens;
    }
    if (freed < targetTokens) {
      selected.push(...oldestFirst([...evictable], targetTokens - freed, new Set(selected)));
    }
    return selected;
  }
}

function groupByTask(items: readonly ContextItem[]): TaskGroup[] {
  const groups: TaskGroup[] = [];
  let current: TaskGroup | undefined;
  for (const item of items) {
    if (item.kind === "reference") continue;
    if (item.kind === "prompt" || !current) {
      current = { items: [], tokens: 0, lastTurn: item.lastTurn, completed: false };
      groups.push(current);
    }
    current.items.push(item);
    current.tokens += item.tokens;
    current.lastTurn = Math.max(current.lastTurn, item.lastTurn);
    const text = item.text.toLowerCase();
    if (item.kind === "answer" || COMPLETION_SIGNALS.some((signal) => text.includes(signal))) current.completed = true;
  }
  return groups;
}
