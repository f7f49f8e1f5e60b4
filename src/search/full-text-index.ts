import { Index } from "flexsearch";
import { TF_BUCKETS, TF_BUCKET_VALUE, TF_MARK } from "./full-text-document.js";

export interface FullTextHit {
  id: number;
  /** BM25 score; higher is better. */
  score: number;
}

/** BM25 parameters (Robertson & Zaragoza 2009, the usual defaults). */
const K1 = 1.2;
const B = 0.75;

/**
 * The full-text signal: FlexSearch holds the inverted index (documents are
 * pre-tokenised, distinct terms separated by spaces, so FlexSearch only
 * splits on spaces), and ranking is BM25 over its postings, because
 * FlexSearch's own ranking (term position, no IDF, no term frequency) is weak
 * for the long natural-language queries an agent sends. Term frequency
 * travels as bucket terms (`term#4`), see `full-text-document.ts`.
 *
 * Removal is by tombstone: FlexSearch's `remove` without its memory-hungry
 * `fastupdate` register scans the whole index (≈15 ms a document on a large
 * repository), and with it the index takes twice the memory. Tombstoned
 * documents are skipped at query time and dropped on the next rebuild.
 */
export class FullTextIndex {
  private index: Index;
  private readonly lengths = new Map<number, number>();
  private readonly tombstones = new Set<number>();
  private totalLength = 0;
  private scores = new Float64Array(1024);

  constructor() {
    this.index = FullTextIndex.createIndex();
  }

  private static createIndex(): Index {
    return new Index({
      tokenize: "strict",
      resolution: 1,
      fastupdate: false,
      // Documents and queries arrive pre-tokenised; a plain split is faster than an Encoder.
      encode: (text: string) => text.split(" "),
    });
  }

  /** Live documents. */
  get size(): number {
    return this.lengths.size;
  }

  get tombstoneCount(): number {
    return this.tombstones.size;
  }

  has(id: number): boolean {
    return this.lengths.has(id);
  }

  /**
   * `terms`: the document's distinct terms, space-separated; `length`: its term
   * count with repeats. Adding a live id again is a no-op.
   */
  add(id: number, terms: string, length: number): void {
    // The store never reuses ids (AUTOINCREMENT) and a changed document gets a new
    // id, so a live id is already indexed with exactly these terms.
    if (this.lengths.has(id)) return;
    if (this.tombstones.has(id)) throw new Error(`Full-text document ${id} was removed; ids are never reused.`);
    this.index.add(id, terms);
    this.lengths.set(id, length);
    this.totalLength += length;
  }

  remove(id: number): void {
    const length = this.lengths.get(id);
    if (length === undefined) return;
    this.lengths.delete(id);
    this.totalLength -= length;
    this.tombstones.add(id);
  }

  /** Marks documents that no longer exist in the store (live or only in a loaded snapshot). */
  markRemoved(ids: Iterable<number>): void {
    for (const id of ids) {
      if (this.lengths.has(id)) this.remove(id);
      else this.tombstones.add(id);
    }
  }

  setLength(id: number, length: number): void {
    const previous = this.lengths.get(id);
    if (previous !== undefined) this.totalLength -= previous;
    this.lengths.set(id, length);
    this.totalLength += length;
  }

  search(terms: readonly string[], limit: number): FullTextHit[] {
    const documentCount = this.lengths.size;
    if (documentCount === 0 || terms.length === 0 || limit <= 0) return [];
    const averageLength = Math.max(1, this.totalLength / documentCount);
    const touched: number[] = [];
    const frequencies = new Map<number, number>();

    for (const term of new Set(terms)) {
      const postings = this.postings(term);
      let documentFrequency = postings.length;
      if (this.tombstones.size > 0) {
        for (const id of postings) if (this.tombstones.has(id)) documentFrequency--;
      }
      if (documentFrequency <= 0) continue;
      const idf = Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
      frequencies.clear();
      for (const bucket of TF_BUCKETS) {
        const value = TF_BUCKET_VALUE[bucket] as number;
        for (const id of this.postings(`${term}${TF_MARK}${bucket}`)) frequencies.set(id, value);
      }
      for (const id of postings) {
        const length = this.lengths.get(id);
        if (length === undefined) continue; // tombstoned
        const frequency = frequencies.get(id) ?? 1;
        const normalisation = 1 - B + (B * length) / averageLength;
        const contribution = (idf * frequency * (K1 + 1)) / (frequency + K1 * normalisation);
        if (id >= this.scores.length) this.growScores(id);
        if (this.scores[id] === 0) touched.push(id);
        this.scores[id] = (this.scores[id] as number) + contribution;
      }
    }

    const hits = touched.map((id) => ({ id, score: this.scores[id] as number }));
    for (const id of touched) this.scores[id] = 0;
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, limit);
  }

  /**
   * Every document holding the term. FlexSearch may return undefined for a
   * term whose postings were emptied, and may return its internal arrays:
   * read them, never change them.
   */
  private postings(term: string): readonly number[] {
    const limit = this.lengths.size + this.tombstones.size;
    return (this.index.search(term, { limit }) as number[] | undefined) ?? [];
  }

  /** All document ids FlexSearch holds, live or tombstoned. */
  indexedIds(): Set<number> {
    return new Set((this.index as unknown as { reg: Set<number> | Map<number, unknown> }).reg.keys());
  }

  /** FlexSearch's own export: (key, data) pairs to persist. */
  async export(): Promise<Array<[string, string]>> {
    const parts: Array<[string, string]> = [];
    await this.index.export((key: string, data: string) => {
      parts.push([key, data]);
    });
    return parts;
  }

  /** Replaces the index with a persisted export. Lengths are set separately (they live in the store). */
  import(parts: ReadonlyArray<readonly [string, string]>): void {
    this.index = FullTextIndex.createIndex();
    this.lengths.clear();
    this.tombstones.clear();
    this.totalLength = 0;
    for (const [key, data] of parts) this.index.import(key, data);
  }

  /** Drops tombstones by rebuilding from the documents a caller streams in. */
  rebuild(documents: Iterable<{ id: number; terms: string; length: number }>): void {
    this.index = FullTextIndex.createIndex();
    this.lengths.clear();
    this.tombstones.clear();
    this.totalLength = 0;
    for (const document of documents) this.add(document.id, document.terms, document.length);
  }

  private growScores(id: number): void {
    let size = this.scores.length;
    while (size <= id) size *= 2;
    const grown = new Float64Array(size);
    grown.set(this.scores);
    this.scores = grown;
  }
}
