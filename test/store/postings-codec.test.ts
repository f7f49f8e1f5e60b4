import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bucketCountFor,
  bucketOf,
  decodeBucket,
  decodeDocuments,
  encodeBuckets,
  encodeDocuments,
  type StoredSlots,
} from "../../src/store/postings-codec.js";

// Ids from one-byte differences up to the largest a table hands out in practice.
const ids = fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 31 - 1 }), { maxLength: 30 }).map((list) => list.sort((a, b) => a - b));
// Terms as documents store them: anything but spaces, Unicode included.
const term = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter((text) => !text.includes(" "));
const slots = fc.array(fc.option(ids, { nil: undefined }), { maxLength: 5 });
const terms = fc.uniqueArray(fc.tuple(term, slots), { selector: ([text]) => text, maxLength: 200 });

/** Slots as plain arrays; an empty slot reads as missing. */
const normalised = (list: StoredSlots) => Array.from(list, (slot) => (slot && slot.length > 0 ? Array.from(slot) : undefined));

describe("full-text snapshot layout", () => {
  it("gives back every term's postings, and only the wanted terms' when asked", () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 0, max: 10 }), (entries, wantedCount) => {
        const buckets = bucketCountFor(entries.length);
        const rows = encodeBuckets(entries, buckets);
        expect(rows.every(([bucket]) => bucket >= 0 && bucket < buckets)).toBe(true);
        const decoded = new Map(rows.flatMap(([, data]) => decodeBucket(data)).map(([text, list]) => [text, normalised(list)] as const));
        expect(decoded.size).toBe(entries.length);
        for (const [text, list] of entries) expect(decoded.get(text)).toEqual(normalised(list));

        const wanted = entries.slice(0, wantedCount).map(([text]) => text);
        const wantedRows = rows.filter(([bucket]) => wanted.some((text) => bucketOf(text, buckets) === bucket));
        const found = wantedRows.flatMap(([, data]) => decodeBucket(data, new Set([...wanted, "absent term"])));
        expect(new Map(found.map(([text, list]) => [text, normalised(list)]))).toEqual(new Map(wanted.map((text) => [text, decoded.get(text)])));

        // Left out: the marked ids, from every slot.
        const marked = new Uint8Array(2 ** 16);
        const smallIds = entries.flatMap(([, list]) => list.flatMap((slot) => Array.from(slot ?? []))).filter((id) => id < marked.length);
        for (const id of smallIds.filter((_, index) => index % 2 === 0)) marked[id] = 1;
        const kept = new Map(rows.flatMap(([, data]) => decodeBucket(data, undefined, marked)).map(([text, list]) => [text, normalised(list)] as const));
        for (const [text, list] of entries) {
          expect(kept.get(text)).toEqual(normalised(list.map((slot) => slot && Array.from(slot).filter((id) => id >= marked.length || marked[id] !== 1))));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("sorts postings that a late document left out of order", () => {
    const [[, data]] = encodeBuckets([["parser", [[9, 3, 5], undefined, [2]]]], 1) as [[number, Uint8Array]];
    expect(decodeBucket(data).map(([text, list]) => [text, normalised(list)])).toEqual([["parser", [[3, 5, 9], undefined, [2]]]]);
  });

  it("gives back the documents and their lengths", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 1 << 24 }), { nil: undefined }), { maxLength: 60 }), (byId) => {
        const live = Uint8Array.from(byId, (length) => (length === undefined ? 0 : 1));
        const lengths = Float32Array.from(byId, (length) => length ?? 0);
        const count = live.reduce((sum, flag) => sum + flag, 0);
        const totalLength = lengths.reduce((sum, length) => sum + length, 0);
        expect(decodeDocuments(encodeDocuments({ live, lengths }), count, totalLength)).toEqual({ live, lengths, count, totalLength });
      }),
    );
  });

  it("spreads terms over power-of-two bucket counts of about 64 terms each", () => {
    expect([0, 1, 64, 65, 84_277].map(bucketCountFor)).toEqual([1, 1, 1, 2, 2048]);
    // Stored buckets must not move between versions.
    expect(bucketOf("crate", 2048)).toBe(bucketOf("crate", 1 << 20) & 2047);
    expect(bucketOf("parser", 1)).toBe(0);
  });
});
