import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addPostings, allTermSlots, createPostingsIndex } from "../../src/search/flexsearch-postings.js";
import { TF_BUCKETS, TF_MARK } from "../../src/search/full-text-document.js";
import { SegmentPostings } from "../../src/search/segment-postings.js";

/** What `addPostings` files for the same documents, ids from 1: the map a segment was before. */
function filedByAddPostings(documents: readonly string[]): string {
  const index = createPostingsIndex({ standalone: true });
  documents.forEach((terms, offset) => {
    addPostings(index, offset + 1, terms);
  });
  return JSON.stringify([...allTermSlots(index)]);
}

function filedInPlace(documents: readonly string[]): string {
  const segment = new SegmentPostings();
  documents.forEach((terms, offset) => {
    segment.add(offset + 1, terms);
  });
  expect(segment.size).toBe(documents.length);
  return JSON.stringify([...segment.entries()]);
}

// Terms that prefix one another and words that look like bucket terms but are not (`ab#04`, `ab#`, `ab#3`, `#2`).
const term = fc.stringMatching(/^[a-c_é][a-c0-9_é]{0,3}$/);
// Also a bucket term of another term than the one before it (`ab ac#4`), which is a term of its own.
const word = fc.oneof(
  { weight: 4, arbitrary: fc.record({ term, bucket: fc.constantFrom(undefined, ...TF_BUCKETS) }) },
  { weight: 1, arbitrary: fc.record({ term, bucket: fc.constantFrom("04", "", "3", "2x", "16 ") }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(term, fc.constantFrom(...TF_BUCKETS))
      .map(([text, bucket]) => ({ term: `${text}${TF_MARK}${bucket}`, bucket: undefined })),
  },
);
// Separated by one space, as the featurizer writes them, or by more, with spaces around.
const documentTerms = fc
  .tuple(fc.array(word, { minLength: 0, maxLength: 25 }), fc.constantFrom(" ", "  "), fc.constantFrom("", " "))
  .map(([entries, separator, around]) => {
    const words = entries.flatMap(({ term: text, bucket }) => (bucket === undefined ? [text] : [text, `${text}${TF_MARK}${bucket}`]));
    return `${around}${words.join(separator)}${around}`;
  });

describe("a segment's postings filed in place", () => {
  it("are exactly what addPostings files: the same terms in the same order, slots and ids", () => {
    fc.assert(
      fc.property(fc.array(documentTerms, { minLength: 1, maxLength: 40 }), (documents) => {
        expect(filedInPlace(documents)).toBe(filedByAddPostings(documents));
      }),
      { numRuns: 300 },
    );
  });

  it("keep their order and postings past the table's growth, with long and non-ASCII terms", () => {
    const documents = Array.from({ length: 300 }, (_, document) =>
      Array.from({ length: 40 }, (_, index) => {
        const text = `term${(document * 7 + index * 13) % 5000}${index % 3 === 0 ? "_withALongSuffixBeyondThirteen" : ""}${index % 11 === 0 ? "ñ" : ""}`;
        return index % 4 === 0 ? `${text} ${text}${TF_MARK}${TF_BUCKETS[index % TF_BUCKETS.length]}` : text;
      }).join(" "),
    );
    expect(filedInPlace(documents)).toBe(filedByAddPostings(documents));
  });

  it("file a bucket term under its term's slot, and a word that only looks like one as a term", () => {
    const segment = new SegmentPostings();
    segment.add(1, "parser parser#4 lexer lexer#04 lexer#");
    segment.add(2, "#2 lexer lexer#16 parses lexers#2");
    expect([...segment.entries()]).toEqual([
      ["parser", [undefined, undefined, [1]]],
      ["lexer", [[1], undefined, undefined, undefined, [2]]],
      ["lexer#04", [[1]]],
      ["lexer#", [[1]]],
      ["#2", [[2]]],
      ["parses", [[2]]],
      ["lexers#2", [[2]]],
    ]);
  });
});
