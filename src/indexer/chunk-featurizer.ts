import type { TrigramFeatures } from "../embedding/hashing-embedder.js";
import { normalize } from "../embedding/embedder.js";
import { isIdentifierCode, PathTokenizer } from "../parsing/code-tokenizer.js";
import { PATH_TERM_REPEAT } from "../parsing/term-counts.js";
import { bucketOf, TF_MARK } from "../search/full-text-document.js";
import { FNV_OFFSET, FNV_PRIME } from "../fnv1a.js";
import { grown, Vocabulary } from "./featurizer-vocabulary.js";

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
 * A generation of the featurizer's tables ends at this many words or
 * tokens; the current one and the one before are kept. A word cost
 * ≈ 430 bytes of a worker's heap in one table with its tokens, stems and a
 * typed array of trigram buckets a token (biome's files, one worker's half:
 * 34.5 MB for 84,669 words); packed, ≈ 200 (16.0 MB). One worker meets
 * ≈ 85k distinct words in biome's 28k files and several hundred thousand
 * in a 250k-file tree made from it: at this size both turn over, so both
 * hold the same bound (≈ 9 MB of tables), and a word still in use is
 * copied forward, not tokenized again (docs/DESIGN-NOTES.md, "The
 * featurizer's words in two generations"; docs/BENCHMARKS.md, fifteenth
 * session).
 */
export const GENERATION_WORDS = 32_768;

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
  private vocabulary = new Vocabulary(null);
  // Per-chunk scratch, indexed by token and stem id; zeroed again after each chunk.
  private tokenCounts = new Int32Array(1024);
  private stemCounts = new Int32Array(1024);
  // The ids a chunk touched, in first-seen order, the first `touched…Count` of each. Typed and kept between chunks:
  // an array emptied by `length = 0` lets go of its storage, and regrowing it for every chunk was a fifth of a
  // worker's allocation (docs/BENCHMARKS.md, nineteenth session).
  private touchedTokens = new Int32Array(1024);
  private touchedTokenCount = 0;
  private touchedStems = new Int32Array(1024);
  private touchedStemCount = 0;
  private readonly pathTokenizer = new PathTokenizer();
  // The last chunk's path tokens and their ids in `pathIdsVocabulary`: a file's chunks share their path, so its
  // tokens are looked up once a file (and again after a turnover), not once a chunk.
  private lastPathTokens: string[] = [];
  private pathIds: number[] = [];
  private pathIdsVocabulary: Vocabulary | null = null;

  /** `generationWords`: words or tokens a generation of the tables holds before the next one starts. */
  constructor(
    readonly features: TrigramFeatures | null,
    private readonly generationWords = GENERATION_WORDS,
  ) {}

  /** Words remembered, in both generations (`ChunkFeaturizer` keeps at most two). */
  get rememberedWords(): number {
    return this.vocabulary.wordsHeld;
  }

  /** `tokenizePath(path)`, with the last directory's tokens kept: a worker's files come a directory at a time. */
  pathTokens(path: string): string[] {
    return this.pathTokenizer.tokens(path);
  }

  /** `pathTokens` is `tokenizePath(path)`; symbols and content are the chunk's. */
  featurize(pathTokens: readonly string[], symbols: readonly string[], content: string): ChunkFeatures {
    if (this.vocabulary.size >= this.generationWords) this.vocabulary = new Vocabulary(this.vocabulary.retired());
    this.countText(content);
    for (const symbol of symbols) this.countText(symbol);
    for (const id of this.pathTokenIds(pathTokens)) this.count(id, PATH_TERM_REPEAT);
    const { terms, termCount } = this.fullTextTerms();
    const vector = this.features ? this.embedding(this.features) : null;
    for (let at = 0; at < this.touchedTokenCount; at++) this.tokenCounts[this.touchedTokens[at] as number] = 0;
    this.touchedTokenCount = 0;
    return { terms, termCount, vector };
  }

  /** The ids of `pathTokens` in the current generation, those of the chunk before when its path tokens were the same. */
  private pathTokenIds(pathTokens: readonly string[]): readonly number[] {
    const last = this.lastPathTokens;
    let same = this.pathIdsVocabulary === this.vocabulary && last.length === pathTokens.length;
    for (let at = 0; same && at < last.length; at++) same = last[at] === pathTokens[at];
    if (!same) {
      this.lastPathTokens = [...pathTokens];
      this.pathIds = pathTokens.map((token) => this.vocabulary.tokenId(token));
      this.pathIdsVocabulary = this.vocabulary;
    }
    return this.pathIds;
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
      let hash = FNV_OFFSET | 0;
      do {
        hash = Math.imul(hash ^ code, FNV_PRIME);
        if (++index === length) break;
        code = text.charCodeAt(index);
      } while (isWordCode(code));
      const offset = this.vocabulary.wordOffset(text, start, index, hash);
      const entries = this.vocabulary.words.entries; // at the word's offset: its token count, then its token ids
      const end = offset + (entries[offset] as number);
      for (let at = offset + 1; at <= end; at++) this.count(entries[at] as number, 1);
    }
  }

  private count(id: number, times: number): void {
    if (id >= this.tokenCounts.length) this.tokenCounts = grown(this.tokenCounts);
    if (this.tokenCounts[id] === 0) {
      if (this.touchedTokenCount === this.touchedTokens.length) this.touchedTokens = grown(this.touchedTokens);
      this.touchedTokens[this.touchedTokenCount++] = id;
    }
    this.tokenCounts[id] = (this.tokenCounts[id] as number) + times;
  }

  /** As `termsFromCounts`: stems in first-seen order, each with its bucket term when it repeats. */
  private fullTextTerms(): { terms: string; termCount: number } {
    const { stemIdOfToken, stems } = this.vocabulary;
    for (let at = 0; at < this.touchedTokenCount; at++) {
      const id = this.touchedTokens[at] as number;
      const stemId = stemIdOfToken[id] as number;
      if (stemId >= this.stemCounts.length) this.stemCounts = grown(this.stemCounts);
      if (this.stemCounts[stemId] === 0) {
        if (this.touchedStemCount === this.touchedStems.length) this.touchedStems = grown(this.touchedStems);
        this.touchedStems[this.touchedStemCount++] = stemId;
      }
      this.stemCounts[stemId] = (this.stemCounts[stemId] as number) + (this.tokenCounts[id] as number);
    }
    const parts: string[] = [];
    let termCount = 0;
    for (let at = 0; at < this.touchedStemCount; at++) {
      const stemId = this.touchedStems[at] as number;
      const frequency = this.stemCounts[stemId] as number;
      const term = stems[stemId] as string;
      parts.push(term);
      const bucket = bucketOf(frequency);
      if (bucket !== undefined) parts.push(`${term}${TF_MARK}${bucket}`);
      termCount += frequency;
      this.stemCounts[stemId] = 0;
    }
    this.touchedStemCount = 0;
    return { terms: parts.join(" "), termCount };
  }

  /** As `TrigramFeatures.embed`: tokens in first-seen order, each weighing 1 + ln(count). */
  private embedding(features: TrigramFeatures): Float32Array {
    const vector = new Float32Array(features.dimensions);
    const vocabulary = this.vocabulary;
    for (let at = 0; at < this.touchedTokenCount; at++) {
      const id = this.touchedTokens[at] as number;
      const start = vocabulary.bucketsOf(id, features);
      const end = start + (vocabulary.tokens[id] as string).length;
      features.addBuckets(vector, vocabulary.buckets, 1 + Math.log(this.tokenCounts[id] as number), start, end);
    }
    return normalize(vector);
  }
}

/** Word characters below 128 by table: the scan's hot test. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, code) => (isIdentifierCode(code) ? 1 : 0));

function isWordCode(code: number): boolean {
  return code < 128 ? ASCII_WORD[code] === 1 : isIdentifierCode(code);
}
