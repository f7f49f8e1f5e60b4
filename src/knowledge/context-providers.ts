import type { ContextItem, ContextLayer } from "./context-layers.js";

/**
 * What the context retriever asks of the rest of Sylk. Each is narrow and
 * optional: the composition root supplies what the session has (a store, the
 * tool list, the memory buffer) and a missing one means an empty layer.
 */

/** The keyword search of the knowledge store behind the four knowledge layers. */
export interface LayerSearch {
  /** At most `limit` items of `layer` matching any of `keywords` (lower-case), best first. */
  search(layer: ContextLayer, keywords: readonly string[], limit: number, sessionKey?: string): Promise<ContextItem[]>;
}

export interface ToolDescriptor {
  name: string;
  description: string;
}

export interface ToolRegistryProvider {
  listTools(): ToolDescriptor[];
  /** Tools whose name or description contains `query`, case-insensitively; at most `limit`. */
  searchTools(query: string, limit: number): ToolDescriptor[];
}

export interface RuntimeContext {
  sessionKey: string;
  activeToolCount: number;
  knowledgeEnabled: boolean;
  memoryEnabled: boolean;
}

export interface RuntimeContextProvider {
  getRuntimeContext(): RuntimeContext;
}

export interface InquiryProvider {
  /** Pending inquiries as `ContextItem`s of the Pending Inquiries layer (see `inquiryItem`). */
  pendingInquiryItems(sessionKey: string | undefined, limit: number): Promise<ContextItem[]>;
}

/** An observation or reflection of a session's observational memory. */
export interface MemoryNote {
  content: string;
  /** The store's count; estimated from `content` when absent. */
  tokenCount?: number;
  /** When present, notes are ordered by it; otherwise their order is taken as chronological. */
  createdAt?: Date;
}

export interface MemoryProvider {
  /** The `limit` most recent reflections of the session, oldest first. */
  recentReflections(sessionKey: string, limit: number): Promise<MemoryNote[]>;
  /** The `limit` most recent observations of the session, oldest first. */
  recentObservations(sessionKey: string, limit: number): Promise<MemoryNote[]>;
}

export interface KnowledgeLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}
