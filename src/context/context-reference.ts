import { randomBytes } from "node:crypto";
import type { ContentType, ContextReference, EntrySummary, ReferenceType } from "../store/content-types.js";

const MAX_TOPICS = 5;
const MAX_ENTITIES = 5;
/** A topic longer than this is cut in the marker (the stored reference keeps it whole). */
const MAX_TOPIC_CHARS = 32;
const integer = new Intl.NumberFormat("en-US");

/**
 * A reference's marker, in one fixed format the model learns to read:
 * `[CTX-REF:conversation | 15 turns (4,200 tokens) @ 14:23 | Topics: auth flow, JWT, middleware | retrieve_context(ref_id="abc123")]`.
 * A pure function of the reference, so rendering is idempotent.
 */
export function renderReference(reference: ContextReference): string {
  const turns = reference.turnRange[1] - reference.turnRange[0] + 1;
  const time = new Date(reference.timestamp);
  const clock = `${String(time.getHours()).padStart(2, "0")}:${String(time.getMinutes()).padStart(2, "0")}`;
  const topics = reference.topics
    .slice(0, 3)
    .map((topic) => (topic.length > MAX_TOPIC_CHARS ? `${topic.slice(0, MAX_TOPIC_CHARS - 1)}…` : topic))
    .join(", ");
  return `[CTX-REF:${reference.type} | ${turns} turns (${integer.format(reference.tokensSaved)} tokens) @ ${clock} | Topics: ${topics} | retrieve_context(ref_id="${reference.id}")]`;
}

/**
 * The longest marker `renderReference` draws for any reference of a session
 * (a billion turns and tokens, the longest type, three topics at full width):
 * what to budget for a marker before its reference exists.
 */
export function widestMarker(): string {
  const wide = 999_999_999;
  return renderReference({
    id: "f".repeat(8),
    type: "plan_discussion",
    sessionId: "",
    agentId: "",
    contentIds: [],
    summary: "",
    tokensSaved: wide,
    turnRange: [1, wide],
    timestamp: 0,
    topics: Array.from({ length: 3 }, () => "W".repeat(MAX_TOPIC_CHARS)),
    entities: [],
    queryHints: [],
  });
}

export interface ReferenceInput {
  id: string;
  sessionId: string;
  agentId: string;
  entries: readonly EntrySummary[];
  /** Tokens the evicted messages took in the window (the entries' own counts when absent). */
  tokensSaved?: number;
  /**
   * Every content id the reference stands for, when `entries` are only a
   * sample of them (their topics describe the reference); with the turns
   * they span. Absent: the entries are all of them.
   */
  all?: { contentIds: string[]; turnRange: [number, number] };
}

/**
 * `ReferenceGenerator`: what the evicted entries were about, from
 * their stored keywords and entities, with no model call (so eviction cannot
 * fail or deadlock): topics by keyword frequency, entities, query hints, the
 * dominant content type and a one-line summary.
 */
export function generateReference(input: ReferenceInput): ContextReference {
  const { entries } = input;
  if (entries.length === 0) throw new Error("no entries to reference");
  const turns = entries.map((entry) => entry.turnNumber);
  const topics = topKeywords(entries);
  const entities = topEntities(entries);
  return {
    id: input.id,
    type: dominantType(entries),
    sessionId: input.sessionId,
    agentId: input.agentId,
    contentIds: input.all?.contentIds ?? entries.map((entry) => entry.id),
    summary: topics.length === 0 ? `${entries.length} turns of conversation` : `Discussion about ${topics.slice(0, 3).join(", ")}`,
    tokensSaved: input.tokensSaved ?? entries.reduce((sum, entry) => sum + entry.tokenCount, 0),
    turnRange: input.all?.turnRange ?? [Math.min(...turns), Math.max(...turns)],
    timestamp: Math.min(...entries.map((entry) => entry.timestamp)),
    topics,
    entities,
    queryHints: [
      ...topics.slice(0, 2).map((topic) => `discussion about ${topic}`),
      ...entities.slice(0, 2).map((entity) => `mentions of ${entity}`),
    ],
  };
}

/**
 * A reference standing for earlier references (markers that crowded the
 * window) and, possibly, newly evicted entries: it points at all their
 * content, and its topics and entities are those most common across them.
 */
export function foldReferences(input: { id: string; folded: readonly ContextReference[]; fresh?: ContextReference }): ContextReference {
  const parts = [...input.folded, ...(input.fresh ? [input.fresh] : [])];
  const first = parts[0];
  if (!first) throw new Error("nothing to fold");
  const rank = (lists: string[][]) => {
    const counts = new Map<string, number>();
    for (const list of lists)
      list.forEach((value, index) => {
        counts.set(value, (counts.get(value) ?? 0) + (list.length - index));
      });
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value]) => value);
  };
  const topics = rank(parts.map((part) => part.topics)).slice(0, MAX_TOPICS);
  const entities = rank(parts.map((part) => part.entities)).slice(0, MAX_ENTITIES);
  const largest = [...parts].sort((a, b) => b.tokensSaved - a.tokensSaved)[0] ?? first;
  return {
    id: input.id,
    type: largest.type,
    sessionId: first.sessionId,
    agentId: first.agentId,
    contentIds: [...new Set(parts.flatMap((part) => part.contentIds))],
    summary:
      topics.length === 0 ? `${parts.length} earlier stretches of conversation` : `Discussion about ${topics.slice(0, 3).join(", ")}`,
    tokensSaved: parts.reduce((sum, part) => sum + part.tokensSaved, 0),
    turnRange: [Math.min(...parts.map((part) => part.turnRange[0])), Math.max(...parts.map((part) => part.turnRange[1]))],
    timestamp: Math.min(...parts.map((part) => part.timestamp)),
    topics,
    entities,
    queryHints: [
      ...topics.slice(0, 2).map((topic) => `discussion about ${topic}`),
      ...entities.slice(0, 2).map((entity) => `mentions of ${entity}`),
    ],
  };
}

function topKeywords(entries: readonly EntrySummary[]): string[] {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    for (const keyword of entry.keywords) counts.set(keyword.toLowerCase(), (counts.get(keyword.toLowerCase()) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_TOPICS)
    .map(([keyword]) => keyword);
}

function topEntities(entries: readonly EntrySummary[]): string[] {
  const counts = new Map<string, number>();
  for (const entry of entries) for (const entity of entry.entities) counts.set(entity, (counts.get(entity) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_ENTITIES)
    .map(([entity]) => entity);
}

/** The most frequent content type decides (first seen wins a tie). */
function dominantType(entries: readonly EntrySummary[]): ReferenceType {
  const counts = new Map<ContentType, number>();
  for (const entry of entries) counts.set(entry.contentType, (counts.get(entry.contentType) ?? 0) + 1);
  let dominant: ContentType = entries[0]?.contentType ?? "agent_message";
  for (const [type, count] of counts) if (count > (counts.get(dominant) ?? 0)) dominant = type;
  switch (dominant) {
    case "research_paper":
    case "web_fetch":
      return "research";
    case "code_file":
      return "code_analysis";
    case "tool_call":
    case "tool_result":
      return "tool_results";
    case "plan_workflow":
      return "plan_discussion";
    default:
      return "conversation";
  }
}

/** A fresh 8-hex-digit reference id, taken neither in the store nor in `alsoTaken` (references made but not stored yet). */
export function newReferenceId(
  store: { getReference(id: string): ContextReference | undefined },
  alsoTaken: ReadonlyMap<string, unknown> = new Map(),
): string {
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!alsoTaken.has(id) && !store.getReference(id)) return id;
  }
}
