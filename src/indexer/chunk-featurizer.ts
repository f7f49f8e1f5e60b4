import type { TrigramFeatures } from "../embedding/hashing-embedder.js";
import { normalize } from "../embedding/embedder.js";
import { isIdentifierCode, tokenize } from "../parsing/code-tokenizer.js";
import { PATH_TERM_REPEAT } from "../parsing/term-counts.js";
import { bucketOf, porterStem, TF_MARK } from "../search/full-text-document.js";

/** What the index stores of a chunk besides its text. */
export interface ChunkFeatures {
  /** Distinct full-text terms with their frequency-bucket terms, space-separated. */
  terms: string;
  /** Terms with repeats: the document length for BM25. */
  termCount: number;
  /** The built-in embedding, when the built-in embedder is configured. */
  vector: Float32Array | null;
}

/**
 * Past this many distinct words a worker forgets its tables and starts
 * over. A word costs ≈ 280 bytes of the worker's heap with its tokens,
 * stems and ids (61 MB for 226k words), and the heap is bounded at
 * `WORKER_HEAP_LIMITS` (96 MB): 150k words stay near 40 MB of it. Biome's
 * 28k files hold about 230k distinct words, a 250k-file monorepo over a
 * million; at a million a worker collected without end near its bound.
 */
const WORD_TABLE_LIMIT = 150_000;

/**
 * The indexing workers' fast path from a chunk to its full-text terms and
 * built-in embedding. It computes exactly what `chunkTermCounts`,
 * `termsFromCounts` and `TrigramFeatures.embed` compute (a property test
 * holds it to that), but interns what repeats: each identifier as written
 * (`parseHTTPHeader`, `self`) maps to the ids of its tokens, each token to
 * its stem and trigram buckets, so a chunk is counted in typed arrays
 * instead of being split, lower-cased and counted in maps word by word.
 * Code repeats its identifiers, so most words cost one probe of a hash
 * table and copy no string. One featurizer lives per worker thread.
 */
export class ChunkFeaturizer {
  private readonly tokenIds = new Map<string, number>();
  private words = new WordTable((word) => tokenize(word).map((token) => this.tokenId(token)));
  private readonly stemIds = new Map<string, number>();
  private tokens: string[] = [];
  private stemIdOfToken: number[] = [];
  private bucketsOfToken: (Int32Array | undefined)[] = [];
  private stems: string[] = [];
  // Per-chunk scratch, indexed by token and stem id; zeroed again after each chunk.
  private tokenCounts = new Int32Array(1024);
  private stemCounts = new Int32Array(1024);
  private readonly touchedTokens: number[] = [];
  private readonly touchedStems: number[] = [];

  /** `wordLimit`: distinct words remembered before the tables start over. */
  constructor(
    readonly features: TrigramFeatures | null,
    private readonly wordLimit = WORD_TABLE_LIMIT,
  ) {}

  /** `pathTokens` is `tokenizePath(path)`; symbols and content are the chunk's. */
  featurize(pathTokens: readonly string[], symbols: readonly string[], content: string): ChunkFeatures {
    if (this.words.size > this.wordLimit) this.forget();
    this.countText(content);
    for (const symbol of symbols) this.countText(symbol);
    for (const token of pathTokens) this.count(this.tokenId(token), PATH_TERM_REPEAT);
    const { terms, termCount } = this.fullTextTerms();
    const vector = this.features ? this.embedding(this.features) : null;
    for (const id of this.touchedTokens) this.tokenCounts[id] = 0;
    this.touchedTokens.length = 0;
    return { terms, termCount, vector };
  }

  /** Counts every token of a text, word by word (a word's tokens never depend on its neighbours). */
  private countText(text: string): void {
    const length = text.length;
    let index = 0;
    while (index < length) {
      let code = text.charCodeAt(index);
      if (!isWordCode(code)) {
        index++;
        continue;
      }
      // FNV-1a over the word's character codes, computed while finding its end.
      const start = index;
      let hash = FNV_OFFSET;
      do {
        hash = Math.imul(hash ^ code, FNV_PRIME);
        if (++index === length) break;
        code = text.charCodeAt(index);
      } while (isWordCode(code));
      const offset = this.words.find(text, start, index, hash);
      const tokenIds = this.words.tokenIds;
      const end = offset + (tokenIds[offset] as number);
      for (let at = offset + 1; at <= end; at++) this.count(tokenIds[at] as number, 1);
    }
  }

  private tokenId(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) {
      id = this.tokens.length;
      this.tokens.push(token);
      this.stemIdOfToken.push(this.stemId(porterStem(token)));
      this.bucketsOfToken.push(undefined);
      this.tokenIds.set(token, id);
      if (id >= this.tokenCounts.length) this.tokenCounts = grown(this.tokenCounts);
    }
    return id;
  }

  private stemId(term: string): number {
    let id = this.stemIds.get(term);
    if (id === undefined) {
      id = this.stems.length;
      this.stems.push(term);
      this.stemIds.set(term, id);
      if (id >= this.stemCounts.length) this.stemCounts = grown(this.stemCounts);
    }
    return id;
  }

  private count(id: number, times: number): void {
    if (this.tokenCounts[id] === 0) this.touchedTokens.push(id);
    this.tokenCounts[id] = (this.tokenCounts[id] as number) + times;
  }

  /** As `termsFromCounts`: stems in first-seen order, each with its bucket term when it repeats. */
  private fullTextTerms(): { terms: string; termCount: number } {
    for (const id of this.touchedTokens) {
      const stemId = this.stemIdOfToken[id] as number;
      if (this.stemCounts[stemId] === 0) this.touchedStems.push(stemId);
      this.stemCounts[stemId] = (this.stemCounts[stemId] as number) + (this.tokenCounts[id] as number);
    }
    const parts: string[] = [];
    let termCount = 0;
    for (const stemId of this.touchedStems) {
      const frequency = this.stemCounts[stemId] as number;
      const term = this.stems[stemId] as string;
      parts.push(term);
      const bucket = bucketOf(frequency);
      if (bucket !== undefined) parts.push(`${term}${TF_MARK}${bucket}`);
      termCount += frequency;
      this.stemCounts[stemId] = 0;
    }
    this.touchedStems.length = 0;
    return { terms: parts.join(" "), termCount };
  }

  /** As `TrigramFeatures.embed`: tokens in first-seen order, each weighing 1 + ln(count). */
  private embedding(features: TrigramFeatures): Float32Array {
    const vector = new Float32Array(features.dimensions);
    for (const id of this.touchedTokens) {
      let buckets = this.bucketsOfToken[id];
      if (buckets === undefined) {
        buckets = features.trigramBuckets(this.tokens[id] as string);
        this.bucketsOfToken[id] = buckets;
      }
      features.addBuckets(vector, buckets, 1 + Math.log(this.tokenCounts[id] as number));
    }
    return normalize(vector);
  }

  private forget(): void {
    this.tokenIds.clear();
    this.words = new WordTable(this.words.tokenize);
    this.stemIds.clear();
    this.tokens = [];
    this.stemIdOfToken = [];
    this.bucketsOfToken = [];
    this.stems = [];
  }
}

/**
 * Words as written, each with the ids of its tokens: an open-addressing
 * table probed with a hash computed during the scan, so a word already seen
 * costs no string copy and no rehash (a `Map` keyed by `text.slice` costs
 * both, and was most of the featurizer's time). A word's token ids sit in
 * one flat array, as `[count, id, id, …]` at the word's offset.
 */
class WordTable {
  private slots = new Int32Array(1 << 16);
  private readonly words: string[] = [];
  private readonly offsets: number[] = [];
  tokenIds = new Int32Array(1 << 16);
  private used = 0;

  constructor(readonly tokenize: (word: string) => readonly number[]) {}

  get size(): number {
    return this.words.length;
  }

  /** The offset of the word `text[start, end)` in `tokenIds`. */
  find(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let entry = this.slots[slot] as number; entry !== 0; entry = this.slots[slot] as number) {
      const word = this.words[entry - 1] as string;
      if (word.length === length && text.startsWith(word, start)) return this.offsets[entry - 1] as number;
      slot = (slot + 1) & mask;
    }
    return this.add(copyOf(text.slice(start, end)), slot);
  }

  private add(word: string, slot: number): number {
    const ids = this.tokenize(word);
    while (this.used + ids.length + 1 > this.tokenIds.length) this.tokenIds = grown(this.tokenIds);
    const offset = this.used;
    this.tokenIds[offset] = ids.length;
    this.tokenIds.set(ids, offset + 1);
    this.used += ids.length + 1;
    this.words.push(word);
    this.offsets.push(offset);
    this.slots[slot] = this.words.length;
    if (this.words.length * 2 > this.slots.length) this.rehash();
    return offset;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    const mask = this.slots.length - 1;
    this.words.forEach((word, index) => {
      let slot = wordHash(word) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = index + 1;
    });
  }
}

/**
 * A string equal to `text` that keeps nothing else alive. V8 cuts a
 * substring of 13 characters or more as a view of the string it came from,
 * so a word kept from a chunk kept the whole chunk's text: a worker's table
 * of 226k words held 222 MB of heap after 20k files of a 250k-file tree
 * (93 MB with copies), past the worker's heap bound, which then collected
 * without end and failed files. Joining forces a new string of the word's
 * own characters, which the view is then cut from.
 */
function copyOf(text: string): string {
  return ` ${text}`.slice(1);
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The hash `countText` computes while it scans a word. */
function wordHash(word: string): number {
  let hash = FNV_OFFSET;
  for (let at = 0; at < word.length; at++) hash = Math.imul(hash ^ word.charCodeAt(at), FNV_PRIME);
  return hash;
}

/** Word characters below 128 by table: the scan's hot test. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, code) => (isIdentifierCode(code) ? 1 : 0));

function isWordCode(code: number): boolean {
  return code < 128 ? ASCII_WORD[code] === 1 : isIdentifierCode(code);
}

function grown(counts: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(counts.length * 2);
  larger.set(counts);
  return larger;
}
