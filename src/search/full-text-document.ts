import { stemmer } from "stemmer";
import { queryTerms } from "../parsing/code-tokenizer.js";

/**
 * A term's frequency in a document, in buckets: `optimizer#4` says the
 * document has "optimizer" 4–7 times. FlexSearch keeps each term once per
 * document, so frequency travels as these extra terms and BM25 reads it
 * back from their postings.
 */
export const TF_BUCKETS = [2, 4, 8, 16] as const;
export const TF_MARK = "#";

/** The frequency a bucket stands for (the middle of its range; BM25 saturates above). */
export const TF_BUCKET_VALUE: Readonly<Record<number, number>> = { 2: 2.5, 4: 5.5, 8: 11.5, 16: 20 };

export interface FullTextTerms {
  /** Distinct terms plus their frequency-bucket terms, ready for the index. */
  distinct: string[];
  /** Terms with repeats: the document length for BM25. */
  count: number;
}

/** The frequency bucket of a term counted `count` times, if it repeats. */
export function bucketOf(count: number): number | undefined {
  let bucket: number | undefined;
  for (const candidate of TF_BUCKETS) if (count >= candidate) bucket = candidate;
  return bucket;
}

/**
 * Version of the full-text term format; indexes written with another are
 * rebuilt (terms are stored, so a change of format must not go unnoticed).
 */
export const TERMS_FORMAT_VERSION = 2;

/**
 * Full-text terms are Porter stems of the code-aware tokens (`exiting` and
 * `exit`, `optimizer` and `optimize` meet). Measured: recall@10 0.638 → 0.678
 * on LoCoMo conversations and 0.820 → 0.843 on vite localisation (BM25 alone).
 */
export function stem(term: string): string {
  let stemmed = stemCache.get(term);
  if (stemmed === undefined) {
    stemmed = porterStem(term);
    if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
    stemCache.set(term, stemmed);
  }
  return stemmed;
}

/** The stem itself, uncached: for callers that intern tokens and keep their own. */
export function porterStem(term: string): string {
  return stemmer(term);
}

/**
 * Tokens repeat across chunks, and the stemmer runs a dozen regular
 * expressions per word: remembered stems took stemming from ≈ 3 s of a
 * 28k-file cold index to a fraction (cleared past the limit, per thread).
 */
const STEM_CACHE_LIMIT = 200_000;
const stemCache = new Map<string, string>();

/** Distinct full-text terms of a query (stemmed like the documents). */
export function fullTextQuery(query: string): string[] {
  return [...new Set(queryTerms(query).map(stem))];
}

/**
 * A document's stored terms narrowed to `wanted` ones, each with its bucket
 * term: what a one-off search needs of a document it adds to its partial
 * index (filing all of a chunk's few hundred terms cost more than the rest).
 */
export function onlyTerms(terms: string, wanted: ReadonlySet<string>): string {
  const kept: string[] = [];
  let term = "";
  let keptTerm = false;
  for (const word of terms.split(" ")) {
    if (word === "") continue;
    // A bucket term is its term plus `#n`, right after it (as `addPostings` reads them).
    const isBucket =
      term !== "" &&
      word.length > term.length + 1 &&
      word[term.length] === TF_MARK &&
      word.startsWith(term) &&
      BUCKET_NAMES.has(word.slice(term.length + 1));
    if (!isBucket) {
      term = word;
      keptTerm = wanted.has(word);
    }
    if (keptTerm) kept.push(word);
  }
  return kept.join(" ");
}

const BUCKET_NAMES: ReadonlySet<string> = new Set(TF_BUCKETS.map(String));

/** Index terms from term counts: each term's stem, and its frequency bucket when it repeats. */
export function termsFromCounts(counts: ReadonlyMap<string, number>): FullTextTerms {
  const stemmed = new Map<string, number>();
  for (const [term, frequency] of counts) {
    const key = stem(term);
    stemmed.set(key, (stemmed.get(key) ?? 0) + frequency);
  }
  const distinct: string[] = [];
  let count = 0;
  for (const [term, frequency] of stemmed) {
    distinct.push(term);
    const bucket = bucketOf(frequency);
    if (bucket !== undefined) distinct.push(`${term}${TF_MARK}${bucket}`);
    count += frequency;
  }
  return { distinct, count };
}
