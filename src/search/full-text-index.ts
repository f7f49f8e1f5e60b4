import type { Index } from "flexsearch";
import {
  addPostings,
  addPostingsBatch,
  allTermSlots,
  compactPostings,
  createPostingsIndex,
  restorePostings,
  termSlots,
  type Postings,
  type TermSlots,
} from "./flexsearch-postings.js";
import { FREQUENCY_OF_CODE, FrequentTermTables } from "./frequent-term-tables.js";
import { FullTextDocuments, type IndexDocuments, LIVE } from "./full-text-documents.js";
import { topK } from "./top-k.js";

interface TermPlan {
  term: string;
  slots: TermSlots;
  documentFrequency: number;
  idf: number;
  /** The most this term can add to a document's score (BM25 saturates at idf × (k1 + 1)). */
  bound: number;
}

export interface FullTextHit {
  id: number;
  /** BM25 score; higher is better. */
  score: number;
}

export interface FullTextResult {
  hits: FullTextHit[];
  /** `idealScore` of the same terms, known once their postings were read. */
  idealScore: number;
}

/** BM25 parameters (Robertson & Zaragoza 2009, the usual defaults). */
const K1 = 1.2;
const B = 0.75;

/**
 * A term in more than this share of the documents is common: when the query
 * also has a rarer term, common terms only score the documents the rarer
 * ones found (Lucene's CommonTermsQuery). Their IDF is below ln 2, so they
 * can reorder those documents but hardly bring in better ones, and scoring
 * every holder of `crate` or `biome` made the p95 of full-text search.
 */
const COMMON_TERM_SHARE = 0.5;

/** A term in more than this share of the documents gets a dense frequency table (see `FrequentTermTables`). */
const FREQUENT_TERM_SHARE = 1 / 16;

/**
 * The full-text signal: FlexSearch holds the inverted index and persists it
 * (documents are pre-tokenised, and their postings are written into it
 * directly, see `flexsearch-postings.ts`). Ranking is BM25 over its
 * postings, because FlexSearch's own ranking (term position, no IDF, no term
 * frequency) is weak for the long natural-language queries an agent sends. Documents arrive
 * with frequency-bucket terms (`term#4`, see `full-text-document.ts`); the
 * index keeps each term once and files the document under the term's
 * frequency slot (FlexSearch's `score` slots), so a repeated term costs no
 * second posting and scoring reads frequencies from where it finds ids.
 *
 * Removal is by tombstone: FlexSearch's `remove` without its memory-hungry
 * `fastupdate` register scans the whole index (≈15 ms a document on a large
 * repository), and with it the index takes twice the memory. Tombstoned
 * documents are skipped at query time and dropped on the next rebuild.
 */
export class FullTextIndex {
  private index: Index;
  private readonly table = new FullTextDocuments();
  /** Each document's score in the current search, by id; back to 0 after it. */
  private scores = new Float64Array(1024);
  /**
   * The documents the current search has scored, in the order found (each
   * once, so it never holds more ids than the document table). Reused across searches
   * (they are synchronous): a fresh array per search, up to ~80k ids for
   * common terms, was a large part of a search's garbage.
   */
  private touched = new Int32Array(1024);
  private touchedCount = 0;
  private readonly frequentTerms = new FrequentTermTables();

  /**
   * `searchedOnce`: the index answers one search and is dropped (a one-off
   * search's partial index). Frequent terms then get no dense tables:
   * building one is a pass over the term's postings and then one over the
   * documents found, where scoring from the postings is the one pass (both
   * add the same term score to the same documents, so results are equal).
   * And its postings need no FlexSearch around them (`standalone`).
   */
  constructor(options: { searchedOnce?: boolean } = {}) {
    this.searchedOnce = options.searchedOnce ?? false;
    this.index = createPostingsIndex({ standalone: this.searchedOnce });
  }

  private readonly searchedOnce: boolean;

  /** Live documents. */
  get size(): number {
    return this.table.liveCount;
  }

  get tombstoneCount(): number {
    return this.table.tombstones;
  }

  has(id: number): boolean {
    return this.table.isLive(id);
  }

  /**
   * `terms`: the document's distinct terms, space-separated; `length`: its term
   * count with repeats. Adding a live id again is a no-op.
   */
  add(id: number, terms: string, length: number): void {
    // The store never reuses ids (AUTOINCREMENT) and a changed document gets a new
    // id, so a live id is already indexed with exactly these terms.
    if (this.table.isLive(id)) return;
    this.table.assertNotRemoved(id);
    addPostings(this.index, id, terms);
    this.frequentTerms.invalidate();
    this.table.markLive(id, length);
  }

  /** `add` for several documents, ids ascending: a restored index's postings grow by one copy each (see `addPostingsBatch`). */
  addAll(documents: ReadonlyArray<{ id: number; terms: string; length: number }>): void {
    const fresh = documents.filter((document) => {
      this.table.assertNotRemoved(document.id);
      return !this.table.isLive(document.id);
    });
    if (fresh.length === 0) return;
    addPostingsBatch(this.index, fresh);
    this.frequentTerms.invalidate();
    for (const document of fresh) this.table.markLive(document.id, document.length);
  }

  remove(id: number): void {
    this.table.tombstone(id);
  }

  /**
   * Brings the index in line with the ids of the store's documents (after
   * restoring a snapshot, or when another process changed the store): live
   * documents the store lost are tombstoned, and the store's documents the
   * index lacks are returned, ascending, for the caller to add.
   */
  reconcile(storeIds: Iterable<number>): { missing: number[]; removed: number } {
    return this.table.reconcile(storeIds);
  }

  /**
   * BM25 over the query's terms, with MaxScore pruning: terms are scored
   * rarest first, and once the k-th best score so far beats what the
   * remaining terms could add at most, those terms only update documents
   * already found, since no other document can reach the top k (exact).
   * Common terms (see `COMMON_TERM_SHARE`) only ever update found documents
   * when the query has a rarer term.
   */
  search(terms: readonly string[], limit: number): FullTextHit[] {
    return this.searchWithIdealScore(terms, limit).hits;
  }

  /** `search`, plus the query's `idealScore` at no extra cost. */
  searchWithIdealScore(terms: readonly string[], limit: number): FullTextResult {
    const plans = this.termPlans(terms);
    const idealScore = plans.reduce((sum, plan) => sum + plan.idf, 0);
    if (plans.length === 0 || limit <= 0) return { hits: [], idealScore };
    const averageLength = Math.max(1, this.table.totalLength / this.table.liveCount);
    this.ensureScratch();
    plans.sort((a, b) => b.idf - a.idf);

    const isCommon = (plan: TermPlan) => plan.documentFrequency > this.table.liveCount * COMMON_TERM_SHARE;
    const anchored = plans.some((plan) => !isCommon(plan));
    this.touchedCount = 0;
    let remainingBound = plans.reduce((sum, plan) => sum + plan.bound, 0);
    let onlyFound = false;
    for (const plan of plans) {
      // Plans run rarest first, so once one is common, the rest are too.
      if (anchored && isCommon(plan)) onlyFound = true;
      if (!onlyFound && this.touchedCount >= limit && this.atLeastAbove(limit, remainingBound)) onlyFound = true;
      this.scoreTerm(plan, averageLength, onlyFound);
      remainingBound -= plan.bound;
    }

    const { scores, touched, touchedCount } = this;
    const hits = topK(touched.subarray(0, touchedCount), scores, limit);
    for (let index = 0; index < touchedCount; index++) scores[touched[index] as number] = 0;
    return { hits, idealScore };
  }

  /**
   * The live documents indexed under `term`, unranked; undefined when more
   * than `max` are (then the term says little about a document). What grep
   * narrows its files with: it needs who holds the term, not how well, and
   * scoring and ranking every holder of a common term cost more than the
   * lookup itself.
   */
  documentsHolding(term: string, max: number): number[] | undefined {
    const slots = this.slots(term);
    let live = 0;
    for (const ids of slots) if (ids) live += this.table.liveIn(ids);
    if (live > max) return undefined;
    const found: number[] = [];
    // A document is filed under one frequency slot of each of its terms, so no id comes twice.
    for (const ids of slots) {
      if (!ids) continue;
      for (let index = 0; index < ids.length; index++) {
        const id = ids[index] as number;
        if (this.table.isLive(id)) found.push(id);
      }
    }
    return found;
  }

  /** The query's distinct terms that some live document holds, with their IDF. */
  private termPlans(terms: readonly string[]): TermPlan[] {
    const documentCount = this.table.liveCount;
    if (documentCount === 0) return [];
    const plans: TermPlan[] = [];
    for (const term of new Set(terms)) {
      const slots = this.slots(term);
      let documentFrequency = 0;
      for (const ids of slots) if (ids) documentFrequency += this.table.liveIn(ids);
      if (documentFrequency === 0) continue;
      const idf = Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
      plans.push({ term, slots, documentFrequency, idf, bound: idf * (K1 + 1) });
    }
    return plans;
  }

  /**
   * Adds one term's BM25 contribution; with `onlyFound`, to documents
   * already scored only. Plain loops, no closures: a process's first
   * queries run this before V8 has optimised it.
   */
  private scoreTerm(plan: TermPlan, averageLength: number, onlyFound: boolean): void {
    const { state, lengths } = this.table;
    const { scores, touched } = this;
    const weight = plan.idf * (K1 + 1);
    const lengthWeight = (K1 * B) / averageLength;
    const baseNormalisation = K1 * (1 - B);
    if (onlyFound && !this.searchedOnce && plan.documentFrequency > this.table.liveCount * FREQUENT_TERM_SHARE) {
      // Found documents are fewer than the term's postings: look them up instead.
      // Each already has a score, so nothing is appended to `touched` here.
      const codes = this.frequentTerms.get(plan.term, state.length, () => plan.slots.map((ids) => ids ?? []));
      for (let index = 0; index < this.touchedCount; index++) {
        const id = touched[index] as number;
        const code = codes[id] as number;
        if (code === 0 || state[id] !== LIVE || scores[id] === 0) continue;
        const frequency = FREQUENCY_OF_CODE[code] as number;
        scores[id] =
          (scores[id] as number) + (weight * frequency) / (frequency + baseNormalisation + lengthWeight * (lengths[id] as number));
      }
      return;
    }
    let touchedCount = this.touchedCount;
    for (let slot = 0; slot < plan.slots.length; slot++) {
      const ids = plan.slots[slot];
      if (!ids) continue;
      const frequency = FREQUENCY_OF_CODE[slot + 1] as number;
      for (let index = 0; index < ids.length; index++) {
        const id = ids[index] as number;
        if (state[id] !== LIVE) continue;
        const score = scores[id] as number;
        if (score === 0) {
          if (onlyFound) continue;
          touched[touchedCount++] = id;
        }
        scores[id] = score + (weight * frequency) / (frequency + baseNormalisation + lengthWeight * (lengths[id] as number));
      }
    }
    this.touchedCount = touchedCount;
  }

  /** Whether at least `k` of the documents scored so far score above `threshold` (stops counting at `k`). */
  private atLeastAbove(k: number, threshold: number): boolean {
    const { scores, touched, touchedCount } = this;
    let above = 0;
    for (let index = 0; index < touchedCount; index++)
      if ((scores[touched[index] as number] as number) > threshold && ++above >= k) return true;
    return false;
  }

  /**
   * The score of a document holding every query term once at average length
   * (Σ idf): scores divided by it say how much of the query a document
   * covers, comparably across queries (prefetch confidence).
   */
  idealScore(terms: readonly string[]): number {
    return this.termPlans(terms).reduce((sum, plan) => sum + plan.idf, 0);
  }

  /** Every document holding the term, live or not, by frequency slot (see `termSlots`). */
  private slots(term: string): TermSlots {
    return termSlots(this.index, term);
  }

  /** The search's scratch arrays as long as the document table, which grows as documents are added. */
  private ensureScratch(): void {
    const size = this.table.state.length;
    if (this.scores.length >= size) return;
    this.scores = new Float64Array(size);
    this.touched = new Int32Array(size);
  }

  /** The live documents, dense by id. */
  documents(): IndexDocuments {
    return this.table.snapshot();
  }

  /**
   * Every term that a live document holds, with its live postings only
   * (tombstones are left out of what is saved, not carried over).
   */
  *liveTerms(): Generator<[string, TermSlots]> {
    for (const [term, slots] of allTermSlots(this.index)) {
      if (this.table.tombstones === 0) {
        yield [term, slots];
        continue;
      }
      const live = slots.map((ids) => ids && Array.prototype.filter.call(ids, (id: number) => this.table.state[id] === LIVE));
      if (live.some((ids) => ids && ids.length > 0)) yield [term, live];
    }
  }

  /**
   * Replaces the index with a snapshot: its documents, live, and the
   * postings of its terms, all of them or only those a query needs (a
   * one-off search, which then scores exactly as the whole index would:
   * BM25 reads only the query's terms and the document statistics).
   */
  restore(
    documents: IndexDocuments,
    terms: Iterable<readonly [string, Array<Postings | undefined>]>,
    leftOut: Iterable<number> = [],
  ): void {
    this.reset();
    this.table.restore(documents, leftOut);
    restorePostings(this.index, terms);
  }

  /** Postings added since the last restore or compaction take the restored form (see `compactPostings`); nothing else changes. */
  compact(): void {
    compactPostings(this.index);
  }

  /** Drops tombstones by rebuilding from the documents a caller streams in. */
  rebuild(documents: Iterable<{ id: number; terms: string; length: number }>): void {
    this.reset();
    for (const document of documents) this.add(document.id, document.terms, document.length);
  }

  private reset(): void {
    this.index = createPostingsIndex({ standalone: this.searchedOnce });
    this.frequentTerms.invalidate();
    this.table.reset();
  }
}
