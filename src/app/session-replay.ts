import type { NoteDisplay } from "../agent/session-recorder.js";
import type { ChatMessage } from "../llm/model-types.js";
import type { ContentEntry } from "../store/content-types.js";
import type { SessionMessageRow } from "../store/session-repository.js";
import { promptAsTyped } from "./mentions.js";

/** A stored conversation as the user lived it: what they typed and what they were shown, in order. */
export type ReplayItem =
  | { kind: "prompt"; text: string }
  | { kind: "answer"; text: string }
  | { kind: "tool"; name: string; input: unknown }
  /** Something the user did outside the conversation (`!command`, /undo). */
  | { kind: "action"; typed?: string; outcome?: string }
  /** A turn that ended before its answer: why (interrupted by the user, a failed call, the process ending). */
  | { kind: "unanswered"; reason: string };

export interface ReplaySource {
  sessions: { messageRows(sessionId: string): SessionMessageRow[] };
  contentStore: { getByIds(ids: readonly string[]): ContentEntry[] };
}

/** Text the engine put in the conversation itself (prefetched excerpts, eviction markers): not what anyone said. */
const ENGINE_MARKER = /^\s*\[(AUTO-RETRIEVED|CTX-REF)\b/;

/**
 * The last `limit` items of a session as the user saw them. The messages the
 * model is sent hold more than that: notes Sylk writes for the model
 * (`[The user undid …]`), a closing note on an unanswered turn, the files an
 * `@` mention attached. Each message's first content entry says which it is.
 */
export function replaySession(source: ReplaySource, sessionId: string, limit: number): ReplayItem[] {
  // A message gives at most a few items, and a tool call's results none: three messages an item is plenty.
  const rows = source.sessions.messageRows(sessionId).slice(-limit * 3);
  const firstIds = rows.flatMap((row) => (row.entryIds[0] ? [row.entryIds[0]] : []));
  const entries = new Map(source.contentStore.getByIds(firstIds).map((entry) => [entry.id, entry]));
  return rows.flatMap((row) => itemsOf(row.message, entries.get(row.entryIds[0] ?? ""))).slice(-limit);
}

function itemsOf(message: ChatMessage, first: ContentEntry | undefined): ReplayItem[] {
  const metadata = first?.metadata ?? {};
  if (metadata.note === true) return noteItems(metadata.display as NoteDisplay | undefined);
  if (typeof metadata.unanswered === "string") return unansweredItems(message, metadata.unanswered);
  const items: ReplayItem[] = [];
  for (const block of message.content) {
    if (block.type === "text" && block.text.trim() && !ENGINE_MARKER.test(block.text)) {
      items.push(message.role === "user" ? { kind: "prompt", text: promptAsTyped(block.text) } : { kind: "answer", text: block.text });
    } else if (block.type === "tool_use") {
      items.push({ kind: "tool", name: block.name, input: block.input });
    }
  }
  return items;
}

/** A note recorded before notes kept what the user saw has nothing to show: it was written for the model. */
function noteItems(display: NoteDisplay | undefined): ReplayItem[] {
  if (!display || (display.typed === undefined && display.outcome === undefined)) return [];
  return [{ kind: "action", ...display }];
}

/** What had arrived of the answer (without the closing note), then why it stopped. */
function unansweredItems(message: ChatMessage, reason: string): ReplayItem[] {
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const partial = text.endsWith(`[${reason}]`) ? text.slice(0, -reason.length - 2).trimEnd() : "";
  return [...(partial ? [{ kind: "answer" as const, text: partial }] : []), { kind: "unanswered", reason }];
}
