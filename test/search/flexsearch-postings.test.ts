import fc from "fast-check";
import { Index } from "flexsearch";
import { describe, expect, it } from "vitest";
import { TF_BUCKETS, TF_MARK } from "../../src/search/full-text-document.js";
import { addPostings, compactPostings, createPostingsIndex, termSlots } from "../../src/search/flexsearch-postings.js";

/**
 * FlexSearch filing the same documents through its own `add`: it splits on
 * spaces, and each term's score slot is its frequency bucket's (the way the
 * index was built before postings were written directly).
 */
function indexedByFlexSearch(documents: readonly string[]): Index {
  let slots: number[] = [];
  const index = new Index({
    tokenize: "strict",
    resolution: TF_BUCKETS.length + 1,
    fastupdate: false,
    encode: (text: string) => {
      const terms: string[] = [];
      slots = [];
      for (const word of text.split(" ")) {
        const [term, bucket] = word.split(TF_MARK);
        if (bucket !== undefined && term === terms.at(-1))
          slots[slots.length - 1] = TF_BUCKETS.indexOf(Number(bucket) as (typeof TF_BUCKETS)[number]) + 1;
        else if (word !== "") {
          terms.push(word);
          slots.push(0);
        }
      }
      return terms;
    },
    score: (_content: string[], _term: string, position: number) => slots[position] ?? 0,
  });
  documents.forEach((terms, offset) => {
    index.add(offset + 1, terms);
  });
  return index;
}

function indexedDirectly(documents: readonly string[]): Index {
  const index = createPostingsIndex();
  documents.forEach((terms, offset) => {
    addPostings(index, offset + 1, terms);
  });
  return index;
}

async function exported(index: Index): Promise<Array<[string, string]>> {
  const parts: Array<[string, string]> = [];
  await index.export((key: string, data: string) => {
    parts.push([key, data]);
  });
  return parts;
}

// Short terms from a small alphabet, so documents share terms and some terms prefix others (`ab`, `ab#4`, `abc`).
const term = fc.stringMatching(/^[a-c_][a-c0-9_]{0,3}$/);
const documentTerms = fc
  .uniqueArray(fc.record({ term, bucket: fc.constantFrom(undefined, ...TF_BUCKETS) }), {
    selector: (entry) => entry.term,
    minLength: 1,
    maxLength: 25,
  })
  .map((entries) =>
    entries.flatMap(({ term: word, bucket }) => (bucket === undefined ? [word] : [word, `${word}${TF_MARK}${bucket}`])).join(" "),
  );

describe("postings written straight into FlexSearch", () => {
  it("leave the index exactly as FlexSearch's own add does: same export, same slots, and they survive export and import", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(documentTerms, { minLength: 1, maxLength: 40 }), async (documents) => {
        const reference = indexedByFlexSearch(documents);
        const direct = indexedDirectly(documents);
        const parts = await exported(direct);
        expect(parts).toEqual(await exported(reference));

        const restored = createPostingsIndex();
        for (const [key, data] of parts) restored.import(key, data);
        for (const word of new Set(documents.flatMap((terms) => terms.split(" ")))) {
          expect(termSlots(direct, word)).toEqual(termSlots(reference, word));
          // Imported from JSON, missing slots are null rather than holes.
          expect(JSON.stringify(termSlots(restored, word))).toBe(JSON.stringify(termSlots(direct, word)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("files a repeated term under its bucket's slot only", () => {
    const index = indexedDirectly(["parser parser#4 lexer", "lexer lexer#16 parser"]);
    expect(termSlots(index, "parser")).toEqual([[2], undefined, [1]]);
    expect(termSlots(index, "lexer")).toEqual([[1], undefined, undefined, undefined, [2]]);
    expect(termSlots(index, "parser#4")).toEqual([]);
  });

  it("compacted, holds the same postings in the restored form, and keeps filing new documents", () => {
    // `common` in 40 documents (a typed array once compacted), `rare` in 2, `once` in 1.
    const documents = Array.from({ length: 40 }, (_, index) =>
      index < 2 ? "common rare" : index === 2 ? "common common#4 once" : "common",
    );
    const index = indexedDirectly(documents);
    const before = ["common", "rare", "once"].map((word) => termSlots(index, word).map((ids) => (ids ? Array.from(ids) : ids)));

    compactPostings(index);
    const common = termSlots(index, "common");
    expect(common[0]).toBeInstanceOf(Int32Array);
    expect(Array.isArray(termSlots(index, "rare")[0])).toBe(true);
    expect(["common", "rare", "once"].map((word) => termSlots(index, word).map((ids) => (ids ? Array.from(ids) : ids)))).toEqual(before);

    addPostings(index, 41, "common rare fresh");
    expect(Array.from(termSlots(index, "common")[0] ?? [])).toEqual([...Array.from(before[0]?.[0] ?? []), 41]);
    expect(termSlots(index, "rare")).toEqual([[1, 2, 41]]);
    expect(termSlots(index, "fresh")).toEqual([[41]]);
  });
});
