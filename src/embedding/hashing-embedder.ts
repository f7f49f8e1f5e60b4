import { FNV_OFFSET, FNV_PRIME } from "../fnv1a.js";
import { textTermCounts } from "../parsing/term-counts.js";
import { normalize, type Embedder } from "./embedder.js";

/**
 * The built-in embedder: works offline, needs no model, and is cheap enough
 * to run on every chunk of a large repository inside the indexing workers.
 * It hashes the character trigrams of code-aware tokens (whole identifiers
 * and their parts, padded: `^op`, `opt`, … `er$`) into signed buckets
 * ("feature hashing", Weinberger et al. 2009), like fastText's subword
 * vectors without the training. Trigrams make morphological variants close
 * (optimize / optimizer / optimization, exit / exiting), which the
 * exact-term full-text signal cannot do; that difference is what fusion gains
 * from. On the localisation benchmark, trigrams alone beat trigrams plus whole
 * words, IDF weighting, corpus-trained random indexing and GloVe word vectors
 * (docs/BENCHMARKS.md).
 *
 * Documents are embedded from the same term counts the full-text index
 * uses (`chunkTermCounts`), queries from their own text.
 */
export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly evidence = "spelling";
  private readonly features: TrigramFeatures;

  constructor(readonly dimensions: number = 256) {
    this.id = `builtin-trigram-v1:${dimensions}`;
    this.features = new TrigramFeatures(dimensions);
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(texts.map((text) => this.features.embed(textTermCounts(text))));
  }

  embedCounts(counts: ReadonlyMap<string, number>): Float32Array {
    return this.features.embed(counts);
  }

  /**
   * A query whose terms weigh by how rare they are in the collection searched
   * (1 + IDF): in a question, "when did Caroline go" says little and
   * "LGBTQ support group" says it all.
   */
  embedWeightedQuery(text: string, weightOf: (term: string) => number): Float32Array {
    const weights = new Map<string, number>();
    for (const term of textTermCounts(text).keys()) weights.set(term, weightOf(term));
    return this.features.embedWeighted(weights);
  }
}

/** Tokens repeat across chunks; their trigram buckets are remembered, up to this many tokens. */
const FEATURE_CACHE_LIMIT = 400_000;

/** Signed trigram buckets per token, cached: the embedding is then little more than additions. */
export class TrigramFeatures {
  private readonly cache = new Map<string, Int32Array>();

  constructor(readonly dimensions: number) {}

  /** A token counted n times weighs 1 + ln n. */
  embed(counts: ReadonlyMap<string, number>): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const [token, count] of counts) this.addToken(vector, token, 1 + Math.log(count));
    return normalize(vector);
  }

  embedWeighted(weights: ReadonlyMap<string, number>): Float32Array {
    const vector = new Float32Array(this.dimensions);
    for (const [token, weight] of weights) this.addToken(vector, token, weight);
    return normalize(vector);
  }

  private addToken(vector: Float32Array, token: string, weight: number): void {
    this.addBuckets(vector, this.bucketsOf(token), weight);
  }

  /** Adds a token's signed buckets (from `trigramBuckets`, or `buckets[start, end)` of several tokens' end to end) to a vector, `weight` times. */
  addBuckets(vector: Float32Array, buckets: Int32Array, weight: number, start = 0, end = buckets.length): void {
    for (let at = start; at < end; at++) {
      const signed = buckets[at] as number;
      // Buckets are stored as ±(index + 1) so that index 0 keeps its sign.
      if (signed > 0) vector[signed - 1] = (vector[signed - 1] as number) + weight;
      else vector[-signed - 1] = (vector[-signed - 1] as number) - weight;
    }
  }

  private bucketsOf(token: string): Int32Array {
    let buckets = this.cache.get(token);
    if (buckets) return buckets;
    buckets = this.trigramBuckets(token);
    if (this.cache.size >= FEATURE_CACHE_LIMIT) this.cache.clear();
    this.cache.set(token, buckets);
    return buckets;
  }

  /** A token's signed trigram buckets, uncached (callers that intern tokens keep their own). */
  trigramBuckets(token: string): Int32Array {
    // Trigrams of "^token$", hashed with 32-bit FNV-1a over their three character codes.
    const length = token.length + 2;
    const buckets = new Int32Array(Math.max(0, length - 2));
    const codeAt = (index: number) => (index === 0 ? 94 : index === length - 1 ? 36 : token.charCodeAt(index - 1));
    for (let start = 0; start + 3 <= length; start++) {
      let hash = FNV_OFFSET;
      for (let offset = 0; offset < 3; offset++) hash = Math.imul(hash ^ codeAt(start + offset), FNV_PRIME);
      hash >>>= 0;
      const index = (hash % this.dimensions) + 1;
      buckets[start] = hash >>> 31 === 0 ? index : -index;
    }
    return buckets;
  }
}
