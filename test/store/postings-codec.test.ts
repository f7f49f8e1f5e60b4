import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bucketCountFor,
  bucketOf,
  decodeBucket,
  decodeDocuments,
  encodeBuckets,
  encodeDocuments,
  MalformedSnapshotError,
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

/** The highest id the generated postings may name. */
const MAX_ID = 2 ** 31 - 1;

describe("full-text snapshot layout", () => {
  it("gives back every term's postings, and only the wanted terms' when asked", () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 0, max: 10 }), (entries, wantedCount) => {
        const buckets = bucketCountFor(entries.length);
        const rows = encodeBuckets(entries, buckets);
        expect(rows.every(([bucket]) => bucket >= 0 && bucket < buckets)).toBe(true);
        const decoded = new Map(
          rows.flatMap(([, data]) => decodeBucket(data, { maxId: MAX_ID })).map(([text, list]) => [text, normalised(list)] as const),
        );
        expect(decoded.size).toBe(entries.length);
        for (const [text, list] of entries) expect(decoded.get(text)).toEqual(normalised(list));

        const wanted = entries.slice(0, wantedCount).map(([text]) => text);
        const wantedRows = rows.filter(([bucket]) => wanted.some((text) => bucketOf(text, buckets) === bucket));
        const found = wantedRows.flatMap(([, data]) => decodeBucket(data, { wanted: new Set([...wanted, "absent term"]), maxId: MAX_ID }));
        expect(new Map(found.map(([text, list]) => [text, normalised(list)]))).toEqual(
          new Map(wanted.map((text) => [text, decoded.get(text)])),
        );

        // Left out: the marked ids, from every slot.
        const marked = new Uint8Array(2 ** 16);
        const smallIds = entries.flatMap(([, list]) => list.flatMap((slot) => Array.from(slot ?? []))).filter((id) => id < marked.length);
        for (const id of smallIds.filter((_, index) => index % 2 === 0)) marked[id] = 1;
        const kept = new Map(
          rows
            .flatMap(([, data]) => decodeBucket(data, { leftOut: marked, maxId: MAX_ID }))
            .map(([text, list]) => [text, normalised(list)] as const),
        );
        for (const [text, list] of entries) {
          expect(kept.get(text)).toEqual(
            normalised(list.map((slot) => slot && Array.from(slot).filter((id) => id >= marked.length || marked[id] !== 1))),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it("sorts postings that a late document left out of order", () => {
    const [[, data]] = encodeBuckets([["parser", [[9, 3, 5], undefined, [2]]]], 1) as [[number, Uint8Array]];
    expect(decodeBucket(data, { maxId: 9 }).map(([text, list]) => [text, normalised(list)])).toEqual([
      ["parser", [[3, 5, 9], undefined, [2]]],
    ]);
  });

  it("gives back the documents and their lengths", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 1 << 24 }), { nil: undefined }), { maxLength: 60 }), (byId) => {
        const live = Uint8Array.from(byId, (length) => (length === undefined ? 0 : 1));
        const lengths = Float32Array.from(byId, (length) => length ?? 0);
        const count = live.reduce((sum, flag) => sum + flag, 0);
        const totalLength = lengths.reduce((sum, length) => sum + length, 0);
        expect(decodeDocuments(encodeDocuments({ live, lengths }), count, totalLength, Math.max(0, live.length - 1))).toEqual({
          live,
          lengths,
          count,
          totalLength,
        });
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

/** Runs `decode`; what it threw, or undefined when it decoded. */
function thrownBy(decode: () => unknown): unknown {
  try {
    decode();
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Damage a stored row can suffer: bytes flipped, cut short, grown, or a length prefix that lies. */
const damage = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("extend" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 9 }) }),
  fc.record({
    kind: fc.constant("prefix" as const),
    value: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    which: fc.integer({ min: 0, max: 1 }),
  }),
);

function damaged(bytes: Uint8Array, change: typeof damage extends fc.Arbitrary<infer T> ? T : never): Uint8Array {
  switch (change.kind) {
    case "flip": {
      const copy = bytes.slice();
      const at = change.at % copy.length;
      copy[at] = (copy[at] as number) ^ change.mask;
      return copy;
    }
    case "truncate":
      return bytes.slice(0, change.at % bytes.length);
    case "extend":
      return Uint8Array.from([...bytes, ...change.bytes]);
    case "prefix": {
      // The row starts with two varints (term count, header length): one replaced by another value.
      const varint: number[] = [];
      for (let rest = change.value; ; rest = Math.floor(rest / 128)) {
        varint.push(rest >= 128 ? (rest & 0x7f) | 0x80 : rest);
        if (rest < 128) break;
      }
      const firstEnd = bytes.findIndex((byte) => (byte & 0x80) === 0) + 1;
      const secondEnd = firstEnd + bytes.subarray(firstEnd).findIndex((byte) => (byte & 0x80) === 0) + 1;
      const [start, end] = change.which === 0 ? [0, firstEnd] : [firstEnd, secondEnd];
      return Uint8Array.from([...bytes.subarray(0, start), ...varint, ...bytes.subarray(end)]);
    }
  }
}

describe("a damaged snapshot row", () => {
  it("either decodes or throws MalformedSnapshotError: never a RangeError from inside, nor a huge allocation", () => {
    fc.assert(
      fc.property(
        terms.filter((entries) => entries.length > 0),
        damage,
        (entries, change) => {
          for (const [, data] of encodeBuckets(entries, bucketCountFor(entries.length))) {
            const error = thrownBy(() => decodeBucket(damaged(data, change), { maxId: MAX_ID }));
            if (error !== undefined) expect(error).toBeInstanceOf(MalformedSnapshotError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("says what is wrong when it is cut short, grown, or its lengths lie", () => {
    const [[, data]] = encodeBuckets(
      [
        ["parser", [[3, 5, 9], undefined, [2]]],
        ["lexer", [[4]]],
      ],
      1,
    ) as [[number, Uint8Array]];
    const problem = (bytes: Uint8Array, maxId = 9) => (thrownBy(() => decodeBucket(bytes, { maxId })) as Error | undefined)?.message;
    expect(problem(data)).toBeUndefined();
    expect(problem(data.subarray(0, data.length - 4))).toBe("its postings do not fill the row exactly");
    expect(problem(Uint8Array.from([...data, 0, 0, 0, 0]))).toBe("its postings do not fill the row exactly");
    expect(problem(data.subarray(0, 1))).toBe("a number runs past the end of the row");
    expect(problem(Uint8Array.from([2, 0xff, 0xff, 0xff, 0x7f, ...data.subarray(2)]))).toBe("its terms run past the end of the row");
    expect(problem(Uint8Array.from([3, ...data.subarray(1)]))).toBe("its header does not match its term count");
    expect(problem(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toBe("a number is longer than any the snapshot writes");
    expect(problem(data, 4)).toBe("a term's postings name documents the snapshot does not hold");
  });

  it("of documents either decodes or throws MalformedSnapshotError, and is checked against its highest id and count", () => {
    const live = Uint8Array.from([0, 1, 1, 0, 1]);
    const lengths = Float32Array.from([0, 3, 4, 0, 5]);
    const bytes = encodeDocuments({ live, lengths });
    const problem = (blob: Uint8Array, count = 3, maxId = 4) =>
      (thrownBy(() => decodeDocuments(blob, count, 12, maxId)) as Error | undefined)?.message;
    expect(problem(bytes)).toBeUndefined();
    expect(problem(bytes.subarray(0, bytes.length - 1))).toBe("its documents are not whole");
    expect(problem(bytes.subarray(0, bytes.length - 5))).toBe("it holds 4 documents where its highest id says 5");
    expect(problem(bytes, 3, 9)).toBe("it holds 5 documents where its highest id says 10");
    expect(problem(bytes, 6)).toBe("its document count (6) is impossible");
    expect(problem(new Uint8Array(0), 0, 0)).toBeUndefined();
  });
});
