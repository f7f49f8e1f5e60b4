import type { ContextReference } from "../store/content-types.js";
import type { ContextItem } from "./agent-context.js";

/** Where the newest items that fit in `keepTokens` begin (the length when not even the newest fits). */
export function firstOfNewest(items: readonly ContextItem[], keepTokens: number): number {
  let kept = 0;
  let first = items.length;
  while (first > 0) {
    const item = items[first - 1] as ContextItem;
    if (kept + item.tokens > keepTokens) break;
    kept += item.tokens;
    first--;
  }
  return first;
}

/** Tokens these items take in the window: what evicting them frees. */
export function freed(items: readonly ContextItem[]): number {
  return items.reduce((sum, item) => sum + item.tokens, 0);
}

/**
 * What an eviction takes: the markers among the items (their references
 * fold into the new one) and, of the other items, the entries, message
 * ordinals, turns and tokens. One loop: a handoff's trim passes every turn
 * of the window here, and a flatMap and filter per field cost more than
 * the rest of the trim's bookkeeping.
 */
export function partitionEvicted(selected: readonly ContextItem[]) {
  const folded: ContextReference[] = [];
  const freshIds: string[] = [];
  const freshOrdinals: number[] = [];
  const freshTurns: [number, number] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  let freshTokens = 0;
  for (const item of selected) {
    if (item.reference) {
      folded.push(item.reference);
      continue;
    }
    for (const entryId of item.entryIds) freshIds.push(entryId);
    for (const ordinal of item.ordinals) freshOrdinals.push(ordinal);
    freshTurns[0] = Math.min(freshTurns[0], item.firstTurn);
    freshTurns[1] = Math.max(freshTurns[1], item.lastTurn);
    freshTokens += item.tokens;
  }
  return { folded, freshIds, freshOrdinals, freshTurns, freshTokens };
}

/**
 * Why content leaves the window: `window` (the request would not fit, or the
 * token policy says so), `quality` (the handoff controller's curve, for an
 * agent that evicts), `handoff` (a handoff's trim), `observed` (observational
 * memory's compaction), `manual` (`/evict`).
 */
export type EvictionTrigger = "window" | "quality" | "handoff" | "observed" | "manual";

/** What is about to leave the window, and why: told before the eviction is written (the `PreEvict` hooks). */
export interface EvictionNotice {
  trigger: EvictionTrigger;
  /** The turns it spans, markers folded in included. */
  turnRange: [number, number];
  tokens: number;
  /** Items leaving: messages and older markers. */
  items: number;
}

export function evictionNotice(trigger: EvictionTrigger, selected: readonly ContextItem[]): EvictionNotice {
  const { folded, freshIds, freshTurns } = partitionEvicted(selected);
  const turns = [...folded.map((old) => old.turnRange), ...(freshIds.length > 0 ? [freshTurns] : [])];
  const turnRange: [number, number] = [Math.min(...turns.map((range) => range[0])), Math.max(...turns.map((range) => range[1]))];
  return { trigger, turnRange, tokens: freed(selected), items: selected.length };
}
