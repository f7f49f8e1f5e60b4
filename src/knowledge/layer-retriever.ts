import { type ContextItem, ContextLayer, DEFAULT_RETRIEVAL_LAYERS, KNOWLEDGE_LAYERS } from "./context-layers.js";
import type {
  InquiryProvider,
  KnowledgeLogger,
  LayerSearch,
  MemoryProvider,
  RuntimeContext,
  RuntimeContextProvider,
  ToolDescriptor,
  ToolRegistryProvider,
} from "./context-providers.js";
import { extractKeywords } from "./extract-keywords.js";
import { memoryNoteItem } from "./memory-notes.js";

export const DEFAULT_MAX_PER_LAYER = 5;

export interface LayerRetrieverOptions {
  search?: LayerSearch;
  toolRegistry?: ToolRegistryProvider;
  runtimeContext?: RuntimeContextProvider;
  inquiries?: InquiryProvider;
  memory?: MemoryProvider;
  logger?: KnowledgeLogger;
  /** Items per layer when a call does not say; default 5. */
  maxPerLayer?: number;
}

export interface LayerRetrieveOptions {
  /** The layers to search, in this order; default `DEFAULT_RETRIEVAL_LAYERS`. */
  layers?: readonly ContextLayer[];
  /** Scopes the search, inquiries and memory to a session. Memory layers need one. */
  sessionKey?: string;
  maxPerLayer?: number;
}

export interface LayerFailure {
  layer: ContextLayer;
  error: Error;
}

export interface LayerRetrievalResult {
  /** The query's keywords; empty when it had none and nothing was searched. */
  keywords: readonly string[];
  /** Every layer's items, layers in the requested order. */
  items: ContextItem[];
  /** Layers that failed and were skipped (each also logged as a warning). */
  failures: LayerFailure[];
}

const SESSION_STATE_KEY = "session-state";

const silentLogger: KnowledgeLogger = { warn: () => undefined };

/**
 * `LayerRetriever`, named for what it reads (the context layers) apart from
 * the window's retriever of evicted content (`context/context-retriever.ts`):
 * extracts the query's keywords and gathers up
 * to `maxPerLayer` items from each requested layer, concurrently. A layer
 * without its provider is empty; a layer that fails is logged, reported in
 * `failures` and skipped, and the others still answer.
 */
export class LayerRetriever {
  private search: LayerSearch | undefined;
  private toolRegistry: ToolRegistryProvider | undefined;
  private runtimeContext: RuntimeContextProvider | undefined;
  private inquiries: InquiryProvider | undefined;
  private memory: MemoryProvider | undefined;
  private readonly logger: KnowledgeLogger;
  private readonly maxPerLayer: number;

  constructor(options: LayerRetrieverOptions = {}) {
    this.search = options.search;
    this.toolRegistry = options.toolRegistry;
    this.runtimeContext = options.runtimeContext;
    this.inquiries = options.inquiries;
    this.memory = options.memory;
    this.logger = options.logger ?? silentLogger;
    this.maxPerLayer = positiveOr(options.maxPerLayer, DEFAULT_MAX_PER_LAYER);
  }

  withLayerSearch(search: LayerSearch): this {
    this.search = search;
    return this;
  }

  withToolRegistryProvider(provider: ToolRegistryProvider): this {
    this.toolRegistry = provider;
    return this;
  }

  withRuntimeContextProvider(provider: RuntimeContextProvider): this {
    this.runtimeContext = provider;
    return this;
  }

  withInquiryProvider(provider: InquiryProvider): this {
    this.inquiries = provider;
    return this;
  }

  withMemoryProvider(provider: MemoryProvider): this {
    this.memory = provider;
    return this;
  }

  async retrieve(query: string, options: LayerRetrieveOptions = {}): Promise<LayerRetrievalResult> {
    const keywords = extractKeywords(query);
    if (keywords === undefined) return { keywords: [], items: [], failures: [] };
    const limit = positiveOr(options.maxPerLayer, this.maxPerLayer);
    const layers = [...new Set(options.layers && options.layers.length > 0 ? options.layers : DEFAULT_RETRIEVAL_LAYERS)];
    const answers = await Promise.all(
      layers.map(async (layer): Promise<ContextItem[] | LayerFailure> => {
        try {
          return (await this.retrieveLayer(layer, keywords, limit, options.sessionKey)).slice(0, limit);
        } catch (thrown) {
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          this.logger.warn("context layer retrieval failed", { layer, error: error.message });
          return { layer, error };
        }
      }),
    );
    const result: LayerRetrievalResult = { keywords, items: [], failures: [] };
    for (const answer of answers) {
      if (Array.isArray(answer)) result.items.push(...answer);
      else result.failures.push(answer);
    }
    return result;
  }

  private async retrieveLayer(
    layer: ContextLayer,
    keywords: string[],
    limit: number,
    sessionKey: string | undefined,
  ): Promise<ContextItem[]> {
    if (KNOWLEDGE_LAYERS.has(layer)) return this.search ? this.search.search(layer, keywords, limit, sessionKey) : [];
    switch (layer) {
      case ContextLayer.ToolRegistry:
        return this.toolRegistry ? toolItems(this.toolRegistry, keywords, limit) : [];
      case ContextLayer.RuntimeContext:
        return this.runtimeContext ? [runtimeItem(this.runtimeContext.getRuntimeContext())] : [];
      case ContextLayer.PendingInquiries:
        return this.inquiries ? this.inquiries.pendingInquiryItems(sessionKey, limit) : [];
      case ContextLayer.Reflections:
        if (!this.memory || !sessionKey) return [];
        return (await this.memory.recentReflections(sessionKey, limit)).map((note, index) => memoryNoteItem(layer, note, index));
      case ContextLayer.Observations:
        if (!this.memory || !sessionKey) return [];
        return (await this.memory.recentObservations(sessionKey, limit)).map((note, index) => memoryNoteItem(layer, note, index));
      default:
        return [];
    }
  }
}

function positiveOr(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

/**
 * Tools matching any keyword: one search per keyword, in keyword order,
 * merged by name. (A search for the joined keywords would need the whole
 * phrase as a substring and find almost nothing.)
 */
function toolItems(registry: ToolRegistryProvider, keywords: readonly string[], limit: number): ContextItem[] {
  const found = new Map<string, ToolDescriptor>();
  for (const keyword of keywords) {
    for (const tool of registry.searchTools(keyword, limit)) {
      if (found.size === limit) break;
      if (!found.has(tool.name)) found.set(tool.name, tool);
    }
    if (found.size === limit) break;
  }
  return [...found.values()].map((tool) => ({ layer: ContextLayer.ToolRegistry, key: tool.name, content: tool.description }));
}

const onOff = (flag: boolean) => (flag ? "on" : "off");

export function formatRuntimeContext(context: RuntimeContext): string {
  return [
    `Session: ${context.sessionKey || "none"}`,
    `Active tools: ${context.activeToolCount}`,
    `Knowledge: ${onOff(context.knowledgeEnabled)}`,
    `Memory: ${onOff(context.memoryEnabled)}`,
  ].join(" | ");
}

function runtimeItem(context: RuntimeContext): ContextItem {
  return { layer: ContextLayer.RuntimeContext, key: SESSION_STATE_KEY, content: formatRuntimeContext(context) };
}
