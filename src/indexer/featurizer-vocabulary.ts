import type { TrigramFeatures } from "../embedding/hashing-embedder.js";
import { tokenize } from "../parsing/code-tokenizer.js";
import { porterStem } from "../search/full-text-document.js";
import { copyOf } from "./string-copy.js";

/**
 * One generation of what `ChunkFeaturizer` interns: words as written, each
 * with the ids of its tokens; tokens, each with its stem's id and its
 * trigram buckets; stems. Ids count from 0 in each generation. A word or
 * token the generation lacks is taken from the one before when that has it,
 * with its tokens' stems and buckets, so only what neither has is
 * tokenized, stemmed or hashed.
 */
export class Vocabulary {
  readonly words = new WordTable();
  private readonly tokenIds = new Map<string, number>();
  readonly tokens: string[] = [];
  /** A token's stem id, by token id. */
  stemIdOfToken = new Int32Array(1024);
  private readonly stemIds = new Map<string, number>();
  readonly stems: string[] = [];
  /**
   * Every token's signed trigram buckets (`TrigramFeatures.trigramBuckets`)
   * end to end, a token's `tokens[id].length` of them from
   * `bucketStart[id] - 1` (0 until the token is first embedded): one array
   * rather than a typed array a token, whose objects cost more than the
   * buckets.
   */
  buckets = new Int32Array(4096);
  bucketStart = new Int32Array(1024);
  private bucketsUsed = 0;

  /**
   * This generation's id + 1 of each of the previous generation's tokens a
   * copied word has brought forward, by the previous one's id (0: not yet):
   * a token met again in another copied word costs no `Map` lookup.
   */
  private readonly forwarded: Int32Array;

  constructor(private previous: Vocabulary | null) {
    this.forwarded = new Int32Array(previous?.tokens.length ?? 0);
  }

  /** Words and tokens, the larger: what a generation's size is counted in. */
  get size(): number {
    return Math.max(this.words.size, this.tokens.length);
  }

  /** Words held by this generation and the one before it. */
  get wordsHeld(): number {
    return this.words.size + (this.previous?.words.size ?? 0);
  }

  /** This generation, now to be the previous one: it lets go of its own previous one, so that two are held, not a chain. */
  retired(): Vocabulary {
    this.previous = null;
    return this;
  }

  /**
   * The offset in `words.entries` of the word `text[start, end)` (its token count's), whose
   * FNV-1a hash is `hash` (as `ChunkFeaturizer.countText` computes it): found, copied from the previous
   * generation, or tokenized.
   */
  wordOffset(text: string, start: number, end: number, hash: number): number {
    const offset = this.words.find(text, start, end, hash);
    if (offset >= 0) return offset;
    const previous = this.previous;
    const previousOffset = previous === null ? -1 : previous.words.find(text, start, end, hash);
    const ids =
      previous === null || previousOffset < 0
        ? tokenize(copyOf(text.slice(start, end))).map((token) => this.tokenId(token))
        : this.copiedForward(previous, previousOffset);
    return this.words.add(text, start, end, hash, ids);
  }

  /** This generation's ids of the tokens of the previous generation's word at `previousOffset`. */
  private copiedForward(previous: Vocabulary, previousOffset: number): number[] {
    const previousEntries = previous.words.entries;
    const count = previousEntries[previousOffset] as number;
    const ids: number[] = [];
    for (let at = previousOffset + 1; at <= previousOffset + count; at++) {
      const previousId = previousEntries[at] as number;
      let id = (this.forwarded[previousId] as number) - 1;
      if (id < 0) {
        id = this.tokenId(previous.tokens[previousId] as string);
        this.forwarded[previousId] = id + 1;
      }
      ids.push(id);
    }
    return ids;
  }

  tokenId(token: string): number {
    const id = this.tokenIds.get(token);
    return id === undefined ? this.addToken(token) : id;
  }

  /** The start of the token's buckets in `buckets`, hashed (or copied from the previous generation) on first use. */
  bucketsOf(id: number, features: TrigramFeatures): number {
    const start = this.bucketStart[id] as number;
    if (start !== 0) return start - 1;
    const token = this.tokens[id] as string;
    const own = this.previous?.bucketsIfHashed(token) ?? features.trigramBuckets(token);
    while (this.bucketsUsed + own.length > this.buckets.length) this.buckets = grown(this.buckets);
    this.buckets.set(own, this.bucketsUsed);
    this.bucketStart[id] = this.bucketsUsed + 1;
    this.bucketsUsed += own.length;
    return this.bucketsUsed - own.length;
  }

  /** The token's buckets when this generation has hashed them. */
  private bucketsIfHashed(token: string): Int32Array | undefined {
    const id = this.tokenIds.get(token);
    const start = id === undefined ? 0 : (this.bucketStart[id] as number);
    return start === 0 ? undefined : this.buckets.subarray(start - 1, start - 1 + token.length);
  }

  /** The token's stem when this generation has the token. */
  private stemIfKnown(token: string): string | undefined {
    const id = this.tokenIds.get(token);
    return id === undefined ? undefined : this.stems[this.stemIdOfToken[id] as number];
  }

  private addToken(token: string): number {
    const id = this.tokens.length;
    const stem = this.previous?.stemIfKnown(token) ?? porterStem(token);
    this.tokens.push(token);
    this.tokenIds.set(token, id);
    if (id >= this.stemIdOfToken.length) {
      this.stemIdOfToken = grown(this.stemIdOfToken);
      this.bucketStart = grown(this.bucketStart);
    }
    this.stemIdOfToken[id] = this.stemId(stem);
    return id;
  }

  private stemId(stem: string): number {
    let id = this.stemIds.get(stem);
    if (id === undefined) {
      id = this.stems.length;
      this.stems.push(stem);
      this.stemIds.set(stem, id);
    }
    return id;
  }
}

/**
 * Words as written, each with the ids of its tokens: an open-addressing
 * table probed with a hash computed during the scan, so a word already seen
 * costs no string copy and no rehash (a `Map` keyed by `text.slice` costs
 * both, and was most of the featurizer's time). A slot holds the word's full
 * hash beside its entry, so a probe that meets another word reads no more
 * than the slot; an entry is the word's characters and its token ids, end
 * to end in one flat array (`[length, char, …, count, id, …]`), so a word
 * found is compared and counted from one place, not from a string somewhere
 * on the heap (docs/DESIGN-NOTES.md, "The word table's probes").
 */
class WordTable {
  /** `[hash, entry + 1]` a slot; 0 in the second is an empty slot. */
  private slots = new Int32Array(1 << 17);
  /** The entries, end to end: `[length, char, …, count, id, …]`; a word's offset is its `count`'s. */
  entries = new Int32Array(1 << 16);
  private used = 0;
  private count = 0;
  /** Where the last `find` stopped: the word's slot when found, else the empty slot `add` fills. */
  private lastSlot = 0;

  get size(): number {
    return this.count;
  }

  /** The offset of the word `text[start, end)` (its token count's, in `entries`), or -1 when the table lacks it. */
  find(text: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let slot = hash & mask;
    for (let entry = slots[2 * slot + 1] as number; entry !== 0; entry = slots[2 * slot + 1] as number) {
      if (slots[2 * slot] === hash && this.holds(entry - 1, text, start, length)) {
        this.lastSlot = slot;
        return entry + length;
      }
      slot = (slot + 1) & mask;
    }
    this.lastSlot = slot;
    return -1;
  }

  /** Whether the entry at `entry` is the word `text[start, start + length)`. */
  private holds(entry: number, text: string, start: number, length: number): boolean {
    const data = this.entries;
    if (data[entry] !== length) return false;
    for (let at = 0; at < length; at++) if (data[entry + 1 + at] !== text.charCodeAt(start + at)) return false;
    return true;
  }

  /** Adds the word `text[start, end)` with hash `hash`, which the last `find` did not find, with its tokens' ids; returns its offset. */
  add(text: string, start: number, end: number, hash: number, ids: readonly number[]): number {
    const length = end - start;
    while (this.used + length + ids.length + 2 > this.entries.length) this.entries = grown(this.entries);
    const entry = this.used;
    const data = this.entries;
    data[entry] = length;
    for (let at = 0; at < length; at++) data[entry + 1 + at] = text.charCodeAt(start + at);
    const offset = entry + 1 + length;
    data[offset] = ids.length;
    data.set(ids, offset + 1);
    this.used = offset + 1 + ids.length;
    this.slots[2 * this.lastSlot] = hash;
    this.slots[2 * this.lastSlot + 1] = entry + 1;
    this.count++;
    if (this.count * 4 > this.slots.length) this.rehash();
    return offset;
  }

  /** Twice the slots, each entry placed again by the hash its slot kept. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = (this.slots.length >> 1) - 1;
    for (let at = 0; at < old.length; at += 2) {
      if (old[at + 1] === 0) continue;
      let slot = (old[at] as number) & mask;
      while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      this.slots[2 * slot] = old[at] as number;
      this.slots[2 * slot + 1] = old[at + 1] as number;
    }
  }
}

export function grown(counts: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(counts.length * 2);
  larger.set(counts);
  return larger;
}
