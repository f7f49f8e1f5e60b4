import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { onlyTerms, TF_BUCKET_VALUE, TF_BUCKETS, TF_MARK } from "../../src/search/full-text-document.js";
import { FullTextIndex } from "../../src/search/full-text-index.js";
import { bucketCountFor, decodeBucket, decodeDocuments, encodeBuckets, encodeDocuments } from "../../src/store/postings-codec.js";

/** `index` in the snapshot's byte layout. */
function saved(index: FullTextIndex) {
  const terms = [...index.liveTerms()];
  const documents = index.documents();
  const maxId = Math.max(0, documents.live.length - 1);
  return {
    rows: encodeBuckets(terms, bucketCountFor(terms.length)),
    bytes: encodeDocuments(documents),
    count: documents.count,
    totalLength: documents.totalLength,
    maxId,
  };
}

/** A snapshot restored: all terms, or only `terms`; `leftOut` documents removed on the way, as removals noted after a save are. */
function restored(snapshot: ReturnType<typeof saved>, terms?: readonly string[], leftOut: readonly number[] = []): FullTextIndex {
  const wanted = terms ? new Set(terms) : undefined;
  const marks = new Uint8Array(snapshot.bytes.length);
  for (const id of leftOut) marks[id] = 1;
  const index = new FullTextIndex({ searchedOnce: terms !== undefined });
  index.restore(
    decodeDocuments(snapshot.bytes.slice(), snapshot.count, snapshot.totalLength, snapshot.maxId),
    snapshot.rows.flatMap(([, data]) => decodeBucket(data, { wanted, leftOut: marks, maxId: snapshot.maxId })),
    leftOut,
  );
  return index;
}

const roundTrip = (index: FullTextIndex, terms?: readonly string[]) => restored(saved(index), terms);

const K1 = 1.2;
const B = 0.75;

/**
 * BM25 over the same documents, written the obvious way: what the index's
 * pruned search must equal. Terms in more than half the documents are
 * common: when the query has a rarer term, only documents holding a rarer
 * term are ranked (by all the query's terms).
 */
function referenceSearch(documents: Map<number, { terms: string[]; length: number }>, query: string[], limit: number) {
  const count = documents.size;
  const averageLength = Math.max(1, [...documents.values()].reduce((sum, document) => sum + document.length, 0) / count);
  const scores = new Map<number, number>();
  const holdersOf = (term: string) => [...documents].filter(([, document]) => document.terms.includes(term));
  const rare = [...new Set(query)].filter((term) => {
    const holders = holdersOf(term).length;
    return holders > 0 && holders <= count * 0.5;
  });
  const ranked = new Set(rare.flatMap((term) => holdersOf(term).map(([id]) => id)));
  for (const term of new Set(query)) {
    const holders = holdersOf(term);
    if (holders.length === 0) continue;
    const idf = Math.log(1 + (count - holders.length + 0.5) / (holders.length + 0.5));
    for (const [id, document] of holders) {
      if (rare.length > 0 && !ranked.has(id)) continue;
      let frequency = 1;
      for (const bucket of TF_BUCKETS)
        if (document.terms.includes(`${term}${TF_MARK}${bucket}`)) frequency = TF_BUCKET_VALUE[bucket] as number;
      const normalisation = 1 - B + (B * document.length) / averageLength;
      scores.set(id, (scores.get(id) ?? 0) + (idf * frequency * (K1 + 1)) / (frequency + K1 * normalisation));
    }
  }
  return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
}

// A skewed vocabulary: a few terms in nearly every document (as `crate`, `biome` in a Rust
// monorepo), a long tail of rare ones; repeats get frequency-bucket terms.
const vocabulary = Array.from({ length: 60 }, (_, index) => `t${index}`);
const documentTerms = fc
  .array(
    fc.integer({ min: 0, max: 59 }).map((index) => (index < 4 ? index : Math.floor(Math.sqrt(index) * 7.7))),
    { minLength: 1, maxLength: 40 },
  )
  .map((indexes) => {
    const counts = new Map<string, number>();
    for (const index of indexes) counts.set(vocabulary[index % 60] as string, (counts.get(vocabulary[index % 60] as string) ?? 0) + 1);
    const terms: string[] = [];
    for (const [term, frequency] of counts) {
      terms.push(term);
      let bucket: number | undefined;
      for (const candidate of TF_BUCKETS) if (frequency >= candidate) bucket = candidate;
      if (bucket) terms.push(`${term}${TF_MARK}${bucket}`);
    }
    return { terms, length: indexes.length };
  });

describe("full-text ranking", () => {
  it("equals plain BM25 over the same terms (common terms ranking only what rarer ones found): top k, scores and order, with removed documents, also after a snapshot round trip of all terms or of the query's only; and each term's holders, unranked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(documentTerms, { minLength: 1, maxLength: 120 }),
        fc.array(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 15 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (documents, queryIndexes, limit, removals) => {
          const index = new FullTextIndex();
          // Documents narrowed to the query's terms (as a one-off search adds those newer than its snapshot).
          const narrowed = new FullTextIndex();
          const live = new Map<number, { terms: string[]; length: number }>();
          const query = queryIndexes.map((queryIndex) => vocabulary[queryIndex] as string);
          documents.forEach((document, offset) => {
            index.add(offset + 1, document.terms.join(" "), document.length);
            narrowed.add(offset + 1, onlyTerms(document.terms.join(" "), new Set(query)), document.length);
            live.set(offset + 1, document);
            // A search halfway builds frequent-term tables that later adds must not leave stale.
            if (offset === Math.floor(documents.length / 2)) index.search(query, limit);
          });
          // Added in one batch (as a restored index takes the documents newer than its snapshot).
          const batched = new FullTextIndex();
          batched.addAll(
            documents.map((document, offset) => ({ id: offset + 1, terms: document.terms.join(" "), length: document.length })),
          );
          for (const removal of removals) {
            const id = (removal % documents.length) + 1;
            index.remove(id);
            narrowed.remove(id);
            batched.remove(id);
            live.delete(id);
          }
          if (live.size === 0) return;
          expect(batched.searchWithIdealScore(query, limit)).toEqual(index.searchWithIdealScore(query, limit));
          expect(narrowed.searchWithIdealScore(query, limit)).toEqual(index.searchWithIdealScore(query, limit));
          const reference = referenceSearch(live, query, Number.POSITIVE_INFINITY);
          const expected = reference.slice(0, limit);
          const actual = index.search(query, limit);
          // The index sums the same terms in another arrangement, so two documents tied in
          // exact arithmetic may differ in the last bit either way: a tie may be broken
          // either way, anything else must match the reference's rank for rank.
          const referenceScore = new Map(reference);
          // Past the limit come only documents that tie the last one kept: which of them to cut is the caller's to say.
          expect(actual.length).toBeGreaterThanOrEqual(expected.length);
          for (const tied of actual.slice(expected.length)) expect(tied.score).toBe(actual[expected.length - 1]?.score);
          expect(new Set(actual.map((hit) => hit.id)).size).toBe(actual.length);
          actual.slice(0, expected.length).forEach((hit, rank) => {
            expect(hit.score).toBeCloseTo(expected[rank]?.[1] as number, 9);
            expect(referenceScore.get(hit.id)).toBeCloseTo(hit.score, 9);
          });

          // Restored from its snapshot (removed documents are left out) and confirmed by the store.
          const loaded = roundTrip(index);
          expect(loaded.reconcile(live.keys())).toEqual({ missing: [], removed: 0 });
          expect(loaded.search(query, limit)).toEqual(actual);
          expect(loaded.idealScore(query)).toBe(index.idealScore(query));
          // A one-off search restores only the query's terms: same hits, same scores, bit for bit.
          const partial = roundTrip(index, query);
          expect(partial.searchWithIdealScore(query, limit)).toEqual(index.searchWithIdealScore(query, limit));
          // Who holds each term, unranked (what grep narrows its files with): every live holder once, none past the cap.
          for (const term of new Set(query)) {
            const holders = [...live].filter(([, document]) => document.terms.includes(term)).map(([id]) => id);
            for (const target of [index, batched, narrowed, loaded, partial]) {
              const found = target.documentsHolding(term, limit);
              expect(found && [...found].sort((a, b) => a - b)).toEqual(holders.length > limit ? undefined : holders);
            }
          }
          // Documents removed after the save are left out of a restored index instead of tombstoned.
          const [gone] = live.keys();
          if (gone === undefined || live.size === 1) return;
          const before = saved(index);
          index.remove(gone);
          expect(restored(before, query, [gone]).searchWithIdealScore(query, limit)).toEqual(index.searchWithIdealScore(query, limit));
          expect(restored(before, undefined, [gone]).search(query, limit)).toEqual(index.search(query, limit));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a document narrowed to some terms", () => {
  it("keeps those terms with their bucket terms, read as the index reads them", () => {
    expect(onlyTerms("parser parser#4 lexer lexer#16 token", new Set(["lexer", "token"]))).toBe("lexer lexer#16 token");
    expect(onlyTerms("c c#2 c#x  d", new Set(["c#x"]))).toBe("c#x");
    expect(onlyTerms("c c#2 c#x d", new Set(["c"]))).toBe("c c#2");
  });
});

describe("a restored snapshot", () => {
  it("ignores a document added again instead of filing it twice, and tombstones what the store lost", () => {
    const index = new FullTextIndex();
    index.add(1, "parser parser#4 lexer", 6);
    index.add(2, "lexer", 1);
    index.add(3, "parser", 1);
    index.remove(3);
    const loaded = roundTrip(index);
    expect(loaded.tombstoneCount).toBe(0);
    loaded.add(1, "parser parser#4 lexer", 6);
    expect(loaded.reconcile([1, 2])).toEqual({ missing: [], removed: 0 });
    expect(loaded.size).toBe(2);
    expect(loaded.search(["parser", "lexer"], 5)).toEqual(index.search(["parser", "lexer"], 5));
    // A restored term's postings (typed arrays) grow like any other.
    for (const target of [index, loaded]) target.add(7, "lexer lexer#2 parser", 4);
    expect(loaded.search(["parser", "lexer"], 5)).toEqual(index.search(["parser", "lexer"], 5));
    const batched = roundTrip(index);
    index.add(8, "parser#2 lexer", 3);
    batched.addAll([{ id: 8, terms: "parser#2 lexer", length: 3 }]);
    expect(batched.search(["parser", "lexer"], 5)).toEqual(index.search(["parser", "lexer"], 5));
    index.remove(8);
    expect(loaded.reconcile([2, 5, 4, 7])).toEqual({ missing: [4, 5], removed: 1 });
    expect(loaded.search(["parser"], 5).map((hit) => hit.id)).toEqual([7]);
  });
});
