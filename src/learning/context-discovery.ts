import { ContextWeightBias, type ContextWeightBiasJSON } from "./context-weight-bias.js";

/** How close a prompt must be to a centroid to join its context. */
const SIMILARITY_THRESHOLD = 0.7;
/** Weight of a new prompt in its context's centroid (exponential mean). */
const CENTROID_RATE = 0.1;
/** Weight of a new satisfaction in its context's baseline (exponential mean). */
const BASELINE_RATE = 0.1;

export interface ContextDiscoveryOptions {
  maxContexts: number;
  /** Normalised prompts remembered for the fast path; the oldest are forgotten first. */
  maxCachedQueries: number;
}

const DEFAULT_OPTIONS: ContextDiscoveryOptions = { maxContexts: 10, maxCachedQueries: 1000 };

/** A discovered context: its centroid, its bias, and the satisfaction baseline the advantage rule needs. */
export interface DiscoveredContext {
  id: string;
  centroid: number[];
  count: number;
  bias: ContextWeightBias;
  /** Exponential mean of this context's satisfaction; undefined until the first episode. */
  baseline: number | undefined;
}

export interface ContextDiscoveryJSON {
  maxContexts: number;
  maxCachedQueries: number;
  contexts: { id: string; centroid: number[]; count: number; bias: ContextWeightBiasJSON; baseline: number | null }[];
  /** [normalised query, context id], oldest first. */
  cache: [string, string][];
}

function normalizeForCache(query: string): string {
  return query.trim().toLowerCase();
}

function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * Contexts emerge from the prompts' embeddings instead of being predefined. The embedding is passed in, so this stays pure.
 */
export class ContextDiscovery {
  private readonly contexts: DiscoveredContext[] = [];
  private readonly cache = new Map<string, string>();
  readonly options: ContextDiscoveryOptions;

  constructor(options: Partial<ContextDiscoveryOptions> = {}) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    if (!(this.options.maxContexts >= 1)) throw new RangeError("ContextDiscovery needs room for at least one context");
  }

  /**
   * The context a prompt belongs to, without learning anything: the cached
   * id, else the nearest at cosine ≥ 0.7, else the id a new context would get
   * (the nearest when full). Sampling uses this; `learn` runs when the
   * episode is applied, so the contexts are a function of the applied log and
   * a replay after a crash rebuilds them exactly.
   */
  classify(query: string, embedding: ArrayLike<number>): string {
    const cached = this.cache.get(normalizeForCache(query));
    if (cached !== undefined) return cached;
    const nearest = this.nearest(embedding);
    return nearest.isNew ? `ctx_${this.contexts.length}` : nearest.context.id;
  }

  /** Classifies and learns, creating a context or moving its centroid. */
  learn(query: string, embedding: ArrayLike<number>): string {
    const key = normalizeForCache(query);
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.remember(key, cached);
      return cached;
    }
    const nearest = this.nearest(embedding);
    let context: DiscoveredContext;
    if (nearest.isNew) {
      context = {
        id: `ctx_${this.contexts.length}`,
        centroid: Array.from(embedding),
        count: 1,
        bias: new ContextWeightBias(),
        baseline: undefined,
      };
      this.contexts.push(context);
    } else {
      context = nearest.context;
      for (let i = 0; i < context.centroid.length; i++) {
        context.centroid[i] = (1 - CENTROID_RATE) * (context.centroid[i] as number) + CENTROID_RATE * (embedding[i] as number);
      }
      context.count++;
    }
    this.remember(key, context.id);
    return context.id;
  }

  /** False for an embedding of another dimension than the contexts' (the embedder changed). */
  accepts(embedding: ArrayLike<number>): boolean {
    const dimensions = this.contexts[0]?.centroid.length;
    return embedding.length > 0 && (dimensions === undefined || embedding.length === dimensions);
  }

  private nearest(embedding: ArrayLike<number>): { isNew: true } | { isNew: false; context: DiscoveredContext } {
    if (!this.accepts(embedding)) {
      throw new RangeError(
        `ContextDiscovery: embedding has ${embedding.length} dimensions, the contexts have ${this.contexts[0]?.centroid.length} (was the embedder changed?)`,
      );
    }
    let best: DiscoveredContext | undefined;
    let bestSimilarity = -Infinity;
    for (const context of this.contexts) {
      const similarity = cosineSimilarity(embedding, context.centroid);
      if (similarity > bestSimilarity) {
        bestSimilarity = similarity;
        best = context;
      }
    }
    // Full: the nearest context, however far, rather than none.
    if (best === undefined || (bestSimilarity < SIMILARITY_THRESHOLD && this.contexts.length < this.options.maxContexts))
      return { isNew: true };
    return { isNew: false, context: best };
  }

  /** The weight bias a context learned; undefined for an unknown one. */
  bias(contextId: string): ContextWeightBias | undefined {
    return this.find(contextId)?.bias;
  }

  baseline(contextId: string): number | undefined {
    return this.find(contextId)?.baseline;
  }

  /** Folds a satisfaction into the context's baseline; the first one starts it. */
  observeSatisfaction(contextId: string, satisfaction: number): void {
    const context = this.find(contextId);
    if (context === undefined || !Number.isFinite(satisfaction)) return;
    context.baseline =
      context.baseline === undefined ? satisfaction : (1 - BASELINE_RATE) * context.baseline + BASELINE_RATE * satisfaction;
  }

  list(): readonly Readonly<DiscoveredContext>[] {
    return this.contexts;
  }

  private find(contextId: string): DiscoveredContext | undefined {
    return this.contexts.find((context) => context.id === contextId);
  }

  /** Re-inserting moves the key to the young end, so eviction forgets the least recently seen. */
  private remember(key: string, contextId: string): void {
    this.cache.delete(key);
    this.cache.set(key, contextId);
    while (this.cache.size > this.options.maxCachedQueries) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }

  toJSON(): ContextDiscoveryJSON {
    return {
      maxContexts: this.options.maxContexts,
      maxCachedQueries: this.options.maxCachedQueries,
      contexts: this.contexts.map((c) => ({
        id: c.id,
        centroid: [...c.centroid],
        count: c.count,
        bias: c.bias.toJSON(),
        baseline: c.baseline ?? null,
      })),
      cache: [...this.cache],
    };
  }

  /** Throws a RangeError naming the damaged field. */
  static fromJSON(data: unknown): ContextDiscovery {
    const fail = (what: string): never => {
      throw new RangeError(`ContextDiscovery: ${what}`);
    };
    const record = (data ?? {}) as Partial<Record<keyof ContextDiscoveryJSON, unknown>>;
    const positiveInt = (value: unknown, name: string) =>
      typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : fail(`${name} must be a positive integer`);
    const discovery = new ContextDiscovery({
      maxContexts: positiveInt(record.maxContexts, "maxContexts"),
      maxCachedQueries: positiveInt(record.maxCachedQueries, "maxCachedQueries"),
    });
    if (!Array.isArray(record.contexts)) fail("contexts must be an array");
    let dimensions: number | undefined;
    for (const raw of record.contexts as unknown[]) {
      const c = (raw ?? {}) as Record<string, unknown>;
      if (typeof c.id !== "string") fail("a context has no id");
      const centroid = c.centroid;
      if (!Array.isArray(centroid) || !centroid.every((x) => typeof x === "number" && Number.isFinite(x)))
        fail(`context ${String(c.id)} has a damaged centroid`);
      dimensions ??= (centroid as number[]).length;
      if ((centroid as number[]).length !== dimensions)
        fail(`context ${String(c.id)} has ${(centroid as number[]).length} dimensions, expected ${dimensions}`);
      const baseline = c.baseline;
      if (baseline !== null && (typeof baseline !== "number" || !Number.isFinite(baseline)))
        fail(`context ${String(c.id)} has a damaged baseline`);
      discovery.contexts.push({
        id: c.id as string,
        centroid: [...(centroid as number[])],
        count: positiveInt(c.count, `context ${String(c.id)} count`),
        bias: ContextWeightBias.fromJSON(c.bias),
        baseline: baseline === null ? undefined : (baseline as number),
      });
    }
    if (discovery.contexts.length > discovery.options.maxContexts) fail("more contexts than maxContexts");
    if (!Array.isArray(record.cache)) fail("cache must be an array");
    for (const entry of record.cache as unknown[]) {
      if (!Array.isArray(entry) || typeof entry[0] !== "string" || typeof entry[1] !== "string" || discovery.find(entry[1]) === undefined) {
        fail(`damaged cache entry ${JSON.stringify(entry)}`);
      }
      discovery.remember((entry as string[])[0] as string, (entry as string[])[1] as string);
    }
    return discovery;
  }
}
