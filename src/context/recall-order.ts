import type { ContentEntry } from "../store/content-types.js";
import type { ConversationLog } from "./conversation-log.js";

/**
 * What the asking agent sees when it searches its history: the entries its
 * window holds as they are, and those of the message that made the call.
 */
export interface WindowView {
  /** The assistant message holding the call (its text and every call in it): the query is in its input, so it always matches. */
  calling: ReadonlySet<string>;
  /** Entries of the messages the window holds as they are, not behind a `[CTX-REF:…]` marker. */
  inWindow: ReadonlySet<string>;
}

/** No window to judge by (a search from outside any conversation): every entry is a result, in the search's order. */
export const NO_WINDOW: WindowView = { calling: new Set(), inWindow: new Set() };

/** Most candidates a search reads to make up for the entries this order moves down or drops. */
const MAX_CANDIDATES = 200;

/**
 * The window of `log` as it is now, for the call `toolUseId`. A message is
 * in the window unless a reference evicted it: the context manager rebuilds
 * every request from these rows, so this is what the model was last sent
 * (and the calling message, which the next request carries).
 */
export function windowViewOf(log: Pick<ConversationLog, "rows">, toolUseId: string | undefined): WindowView {
  const calling = new Set<string>();
  const inWindow = new Set<string>();
  for (const row of log.rows()) {
    if (row.evictedBy) continue;
    for (const id of row.entryIds) inWindow.add(id);
    if (
      toolUseId &&
      row.message.role === "assistant" &&
      row.message.content.some((block) => block.type === "tool_use" && block.id === toolUseId)
    )
      for (const id of row.entryIds) calling.add(id);
  }
  return { calling, inWindow };
}

/**
 * The order a search over history answers in: the calling message never
 * (it holds the query itself), nor an entry with no text (an answer that was
 * only tool calls, which the vector signal finds near anything); then the
 * entries the query's words matched before those only the vector signal
 * found (with the built-in embedder, nearly every entry is some query's
 * neighbour), and within each, first what the model cannot see (evicted, or
 * from another session), then what its window still holds, each part in the
 * search's own order. Moving the window's entries down rather than dropping
 * them keeps a search that only they answer from coming back empty.
 */
export function recallOrder<Hit extends RecallHit>(hits: readonly Hit[], view: WindowView): Hit[] {
  const tiers: Hit[][] = [[], [], [], []];
  for (const hit of hits) {
    if (view.calling.has(hit.entry.id) || hit.entry.content.trim() === "") continue;
    const vectorOnly = hit.signals !== undefined && hit.signals.fulltext === undefined;
    tiers[(vectorOnly ? 2 : 0) + (inWindow(hit.entry, view) ? 1 : 0)]?.push(hit);
  }
  return tiers.flat();
}

/** A history search's hit: its entry, and which signals found it when the search says (a hit without them counts as a word match). */
export interface RecallHit {
  entry: ContentEntry;
  signals?: { readonly fulltext?: unknown; readonly [signal: string]: unknown };
}

/** How many hits to ask the search for, so that `limit` remain after the window's entries move down and the call's drop out. */
export function candidateCount(limit: number, view: WindowView): number {
  return Math.max(limit, Math.min(MAX_CANDIDATES, limit + view.calling.size + view.inWindow.size));
}

/**
 * In the window: held by a message it shows, or the result of another call
 * of the calling message (stored as that call finished, and sent with this
 * call's result before it is part of any message).
 */
function inWindow(entry: ContentEntry, view: WindowView): boolean {
  return view.inWindow.has(entry.id) || (entry.parentId !== undefined && view.calling.has(entry.parentId));
}
