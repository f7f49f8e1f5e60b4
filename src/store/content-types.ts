/** What a content entry holds: every kind of content that enters an agent's context. */
export const CONTENT_TYPES = [
  "user_prompt",
  "agent_response",
  "tool_call",
  "tool_result",
  "code_file",
  "web_fetch",
  "research_paper",
  "agent_message",
  "plan_workflow",
  "test_result",
  "inspector_finding",
  "context_reference",
  "agent_handoff",
  /** Observational memory: notes derived from a session's messages, which stay stored as they were. */
  "observation",
  "reflection",
] as const;

/** Entries derived from others (observational memory): the only ones Sylk ever deletes, since the originals stay. */
export const DERIVED_CONTENT_TYPES = ["observation", "reflection"] as const;
export type DerivedContentType = (typeof DERIVED_CONTENT_TYPES)[number];

export type ContentType = (typeof CONTENT_TYPES)[number];

/** A content entry: anything that entered any agent's context. */
export interface ContentEntry {
  /** Unique per entry (never a hash of the content: the same text twice is two entries). */
  id: string;
  /** SHA-256 of `content`, for finding repeats. */
  contentHash: string;
  sessionId: string;
  agentId: string;
  agentType: string;
  contentType: ContentType;
  /** The full content, byte for byte as it happened, but with its secrets masked. */
  content: string;
  tokenCount: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  turnNumber: number;
  keywords: string[];
  entities: string[];
  parentId?: string;
  childIds: string[];
  relatedFiles: string[];
  metadata: Record<string, unknown>;
}

/** What a context reference is generated from: an entry without its content. */
export type EntrySummary = Pick<ContentEntry, "id" | "contentType" | "tokenCount" | "timestamp" | "turnNumber" | "keywords" | "entities">;

/** What a caller supplies; the store fills id, hash, token count, keywords and timestamp when absent. */
export type NewContentEntry = Omit<
  ContentEntry,
  "id" | "contentHash" | "tokenCount" | "timestamp" | "keywords" | "entities" | "childIds" | "relatedFiles" | "metadata"
> &
  Partial<Pick<ContentEntry, "id" | "tokenCount" | "timestamp" | "keywords" | "entities" | "childIds" | "relatedFiles" | "metadata">>;

/** What an evicted span was mostly about; a context reference names it. */
const REFERENCE_TYPES = ["conversation", "research", "code_analysis", "tool_results", "plan_discussion"] as const;
export type ReferenceType = (typeof REFERENCE_TYPES)[number];

/** A context reference: a pointer to evicted content. */
export interface ContextReference {
  id: string;
  type: ReferenceType;
  sessionId: string;
  agentId: string;
  contentIds: string[];
  summary: string;
  tokensSaved: number;
  turnRange: [number, number];
  timestamp: number;
  topics: string[];
  entities: string[];
  queryHints: string[];
  /**
   * When an old marker was itself moved out of the window, the reference that
   * now stands for it (and points at all its content too).
   */
  foldedInto?: string;
}

/** What a search of the stored history may be restricted to. */
export interface ContentFilters {
  contentTypes?: ContentType[];
  sessionId?: string;
  /** Any of these sessions (a session and its sub-agents' sessions). */
  sessionIds?: string[];
  /** Inclusive. */
  turnRange?: [number, number];
  /** Inclusive, milliseconds since the epoch. */
  timeRange?: [number, number];
  agentTypes?: string[];
  /** Only entries whose `metadata.kind` is one of these (decisions are `agent_message` entries of kind "decision"). */
  metadataKinds?: string[];
}
