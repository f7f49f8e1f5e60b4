import { FNV_OFFSET, FNV_PRIME, fnv1a } from "../fnv1a.js";
import { ownCopy, type TermSlots } from "./flexsearch-postings.js";
import { TF_BUCKETS, TF_MARK } from "./full-text-document.js";

const SPACE_CODE = 0x20;
const MARK_CODE = TF_MARK.charCodeAt(0);
const BUCKET_TEXTS = TF_BUCKETS.map(String);

/**
 * The postings of one segment of a first index's full-text snapshot built
 * on disk (`SegmentedSnapshotBuild`): documents filed under their terms by
 * frequency slot, exactly as `addPostings` files them in a FlexSearch map
 * (the same terms in the same order of first use, the same slots and ids),
 * but with each term found in place in the document's terms text.
 *
 * `addPostings` cut every term out of the text and looked the new string up
 * in a `Map`: a string made, hashed and dropped for each of the 4.6 million
 * terms of biome's chunks, the largest item of a cold index's main thread
 * after SQLite's. Here a term's FNV-1a hash is computed while its end is
 * found and probed in an open-addressing table that compares characters in
 * place, so a term seen before costs no string; a bucket term (`parser#4`)
 * is recognised in place too. The segment is filed once and spilled, never
 * searched or changed, so it needs none of FlexSearch's index.
 */
export class SegmentPostings {
  private readonly keys: string[] = [];
  private readonly postings: Array<Array<number[] | undefined>> = [];
  /** Entry index + 1 by hash slot; 0 is empty. */
  private table = new Int32Array(1 << 12);
  private documents = 0;

  /** Documents filed. */
  get size(): number {
    return this.documents;
  }

  /**
   * Files document `id` under each of its terms (`addPostings`' contract:
   * distinct terms separated by spaces, each followed by its bucket term
   * when it repeats; `id` not filed yet).
   */
  add(id: number, terms: string): void {
    this.documents++;
    const length = terms.length;
    let slots: Array<number[] | undefined> | undefined;
    let term = "";
    let slot = 0;
    for (let start = 0; start < length; ) {
      let end = start;
      let hash = FNV_OFFSET;
      for (; end < length; end++) {
        const code = terms.charCodeAt(end);
        if (code === SPACE_CODE) break;
        hash = Math.imul(hash ^ code, FNV_PRIME);
      }
      if (end > start) {
        const bucketSlot = slots === undefined ? 0 : bucketSlotAt(terms, start, end, term);
        if (bucketSlot > 0) {
          slot = bucketSlot;
        } else {
          if (slots) post(slots, slot, id);
          const entry = this.entryOf(terms, start, end, hash);
          slots = this.postings[entry];
          term = this.keys[entry] as string;
          slot = 0;
        }
      }
      start = end + 1;
    }
    if (slots) post(slots, slot, id);
  }

  /** Every term with its slots, in the order of first use (a FlexSearch map's order). */
  *entries(): Generator<[string, TermSlots]> {
    for (let entry = 0; entry < this.keys.length; entry++) yield [this.keys[entry] as string, this.postings[entry] as TermSlots];
  }

  /** The entry of the term `terms[start, end)`, added when new. */
  private entryOf(terms: string, start: number, end: number, hash: number): number {
    const mask = this.table.length - 1;
    let at = hash & mask;
    for (let entry = this.table[at] as number; entry !== 0; entry = this.table[at] as number) {
      const key = this.keys[entry - 1] as string;
      if (key.length === end - start && terms.startsWith(key, start)) return entry - 1;
      at = (at + 1) & mask;
    }
    // The key outlives the document's terms: a slice would keep all of them alive.
    this.keys.push(ownCopy(terms.slice(start, end)));
    this.postings.push([]);
    this.table[at] = this.keys.length;
    if (this.keys.length * 2 > this.table.length) this.rehash();
    return this.keys.length - 1;
  }

  private rehash(): void {
    this.table = new Int32Array(this.table.length * 2);
    const mask = this.table.length - 1;
    this.keys.forEach((key, index) => {
      let at = fnv1a(key) & mask;
      while (this.table[at] !== 0) at = (at + 1) & mask;
      this.table[at] = index + 1;
    });
  }
}

/**
 * The slot of the word `terms[start, end)` when it is the bucket term of
 * `term` (`term#4`, a bucket of `TF_BUCKETS` written as `String` writes it),
 * else 0: what `eachPosting` decides by slicing.
 */
function bucketSlotAt(terms: string, start: number, end: number, term: string): number {
  const digits = start + term.length + 1;
  if (digits >= end || terms.charCodeAt(digits - 1) !== MARK_CODE || !terms.startsWith(term, start)) return 0;
  for (let bucket = 0; bucket < BUCKET_TEXTS.length; bucket++) {
    const text = BUCKET_TEXTS[bucket] as string;
    if (text.length === end - digits && terms.startsWith(text, digits)) return bucket + 1;
  }
  return 0;
}

function post(slots: Array<number[] | undefined>, slot: number, id: number): void {
  const ids = slots[slot];
  if (ids) ids.push(id);
  else slots[slot] = [id];
}
