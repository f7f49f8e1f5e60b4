import { describe, expect, it } from "vitest";
import { HashingEmbedder } from "../../src/embedding/hashing-embedder.js";
import { Int8VectorScan } from "../../src/search/int8-vector-scan.js";
import { topSlots } from "../../src/search/top-slots.js";
import { clusteredUnitVectors, mulberry32, randomUnitVector } from "../helpers/random-vectors.js";

/**
 * The scan reads only the pairs of dimensions a query uses. These check that
 * it stays the exact int8 scan for the queries the built-in embedder makes
 * (a few dozen of 256 dimensions) on vectors laid out over several tiles.
 */

function referenceScores(vectors: readonly Float32Array[], query: Float32Array): number[] {
  const quantizedQuery = Int8VectorScan.quantize(query);
  return vectors.map((vector) => {
    const quantized = Int8VectorScan.quantize(vector);
    let dot = 0;
    for (let index = 0; index < quantized.length; index++) dot += (quantized[index] as number) * (quantizedQuery[index] as number);
    return dot;
  });
}

/** A unit vector on `used` random dimensions of `dims`, zero elsewhere: the shape of a short query's trigram vector. */
function sparseQuery(dims: number, used: number, random: () => number): Float32Array {
  const query = new Float32Array(dims);
  for (let index = 0; index < used; index++) query[Math.floor(random() * dims)] = random() - 0.5;
  let norm = 0;
  for (const x of query) norm += x * x;
  return query.map((x) => x / Math.sqrt(norm));
}

function filled(vectors: readonly Float32Array[], dims: number): Int8VectorScan {
  const scan = new Int8VectorScan(dims);
  vectors.forEach((vector, slot) => {
    scan.set(slot, vector);
  });
  return scan;
}

describe("a scan of sparse queries", () => {
  const dims = 256;
  // Three tiles of 1,024 and part of a fourth.
  const count = 3 * 1_024 + 411;

  for (const [name, make] of [
    ["seeded random", (random: () => number) => Array.from({ length: count }, () => randomUnitVector(dims, random))],
    ["clustered", (random: () => number) => clusteredUnitVectors(count, dims, 40, 0.05, random)],
  ] as const) {
    it(`scores every ${name} vector exactly and ranks the top k as a full sort does`, () => {
      const random = mulberry32(name.length);
      const vectors = make(random);
      const scan = filled(vectors, dims);
      for (const used of [1, 3, 15, 46, 256]) {
        const query = sparseQuery(dims, used, random);
        const expected = referenceScores(vectors, query);
        expect(Array.from(scan.scan(query)), `${used} dimensions used`).toEqual(expected);
        const ranked = topSlots(Int32Array.from(expected), 100).map(({ slot, score }) => ({ slot, score: scan.similarity(score) }));
        expect(scan.topK(query, 100, () => true)).toEqual(ranked);
      }
    });
  }

  it("scores the built-in embedder's query vectors exactly", async () => {
    const random = mulberry32(41);
    const vectors = clusteredUnitVectors(2_500, dims, 25, 0.05, random);
    const scan = filled(vectors, dims);
    const queries = await new HashingEmbedder(dims).embed([
      "format space includes",
      "serde rename_all camelCase",
      "should generate diagnostics",
    ]);
    for (const query of queries) expect(Array.from(scan.scan(query))).toEqual(referenceScores(vectors, query));
  });

  it("zeroes a cleared slot in the middle of a tile, and keeps its neighbours", () => {
    const random = mulberry32(43);
    const vectors = Array.from({ length: 2_100 }, () => randomUnitVector(dims, random));
    const scan = filled(vectors, dims);
    for (const slot of [0, 513, 1_023, 1_024, 2_099]) {
      scan.clear(slot);
      vectors[slot] = new Float32Array(dims);
    }
    const query = sparseQuery(dims, 20, random);
    const expected = referenceScores(vectors, query);
    expect(Array.from(scan.scan(query))).toEqual(expected);
    const slots = [0, 1, 512, 513, 514, 1_023, 1_024, 2_099];
    expect(scan.similarities(query, slots)).toEqual(slots.map((slot) => scan.similarity(expected[slot] as number)));
  });
});
