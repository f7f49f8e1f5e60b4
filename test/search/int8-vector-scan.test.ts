import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_INT8_SCALE, Int8VectorScan } from "../../src/search/int8-vector-scan.js";
import { selectTopSlots, topSlots } from "../../src/search/top-slots.js";
import {
  instantiateKernel,
  SCAN_BLOCK_SLOTS,
  scanUnclaimedBlocks,
  waitForAllBlocks,
  type KernelExports,
} from "../../src/search/vector-kernel.js";
import { VECTOR_KERNEL_WAT_SHA256 } from "../../src/search/vector-kernel-wasm.js";
import { mulberry32, normalize, randomUnitVector } from "../helpers/random-vectors.js";

function int8Dot(a: Int8Array, b: Int8Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

function floatDot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

function referenceScores(vectors: readonly Float32Array[], query: Float32Array, scale = DEFAULT_INT8_SCALE): number[] {
  const quantizedQuery = Int8VectorScan.quantize(query, scale);
  return vectors.map((vector) => int8Dot(Int8VectorScan.quantize(vector, scale), quantizedQuery));
}

function filledScan(vectors: readonly Float32Array[], dims: number, scale = DEFAULT_INT8_SCALE): Int8VectorScan {
  const scan = new Int8VectorScan(dims, { scale });
  vectors.forEach((vector, slot) => {
    scan.set(slot, vector);
  });
  return scan;
}

describe("Int8VectorScan.scan", () => {
  for (const dims of [16, 256, 384]) {
    for (const count of [0, 1, 1000]) {
      it(`equals a plain JS int8 dot product (dims ${dims}, ${count} vectors)`, () => {
        const random = mulberry32(dims * 7919 + count);
        const vectors = Array.from({ length: count }, () => randomUnitVector(dims, random));
        const query = randomUnitVector(dims, random);
        const scan = filledScan(vectors, dims);
        expect(scan.size).toBe(count);
        expect(Array.from(scan.scan(query))).toEqual(referenceScores(vectors, query));
      });
    }
  }

  // The kernel scores four vectors per group plus a per-vector tail, so counts
  // around multiples of four exercise both paths.
  for (const dims of [16, 48, 64, 256]) {
    for (const count of [1, 3, 4, 5, 1027]) {
      it(`equals a plain JS int8 dot product for group tails (dims ${dims}, ${count} vectors)`, () => {
        const random = mulberry32(dims * 104_729 + count);
        const vectors = Array.from({ length: count }, () => randomUnitVector(dims, random));
        const scan = filledScan(vectors, dims);
        for (let query = 0; query < 3; query++) {
          const vector = randomUnitVector(dims, random);
          expect(Array.from(scan.scan(vector))).toEqual(referenceScores(vectors, vector));
        }
      });
    }
  }

  // The kernel accumulates 1024-dim segments separately to stay clear of i32
  // overflow; saturated same-sign components give the largest lane sums.
  for (const dims of [1024, 1040, 2064, 4096]) {
    it(`is exact across accumulation segments with saturated components (dims ${dims})`, () => {
      const random = mulberry32(dims);
      const scale = 1_000;
      const saturated = (sign: number) => new Float32Array(dims).fill(sign);
      const mixed = () => Float32Array.from({ length: dims }, () => (random() < 0.5 ? -1 : 1));
      const vectors = [saturated(1), saturated(-1), mixed(), mixed(), saturated(1), mixed(), saturated(-1)];
      const scan = filledScan(vectors, dims, scale);
      for (const query of [saturated(1), saturated(-1), mixed()]) {
        expect(Array.from(scan.scan(query))).toEqual(referenceScores(vectors, query, scale));
      }
      expect(scan.scan(saturated(1))[0]).toBe(127 * 127 * dims);
    });
  }

  it("is exact at the int8 extremes (clamped ±127 components) for any multiple-of-16 dims", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((chunks) => {
          const vector = fc.float32Array({ minLength: chunks * 16, maxLength: chunks * 16, min: -1, max: 1, noNaN: true });
          return fc.tuple(fc.constant(chunks * 16), vector, fc.array(vector, { maxLength: 20 }));
        }),
        ([dims, query, vectors]) => {
          // A scale this large saturates most components, exercising ±127 products.
          const scale = 1_000;
          const scan = filledScan(vectors, dims, scale);
          expect(Array.from(scan.scan(query))).toEqual(referenceScores(vectors, query, scale));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("copies into a caller-supplied array and rejects one that is too short", () => {
    const random = mulberry32(5);
    const vectors = Array.from({ length: 10 }, () => randomUnitVector(32, random));
    const query = randomUnitVector(32, random);
    const scan = filledScan(vectors, 32);
    const out = new Int32Array(16);
    const result = scan.scan(query, out);
    expect(result.buffer).toBe(out.buffer);
    expect(Array.from(result)).toEqual(referenceScores(vectors, query));
    expect(() => scan.scan(query, new Int32Array(9))).toThrow(RangeError);
  });

  it("scores cleared and never-set slots as 0", () => {
    const random = mulberry32(6);
    const scan = new Int8VectorScan(64);
    const vector = randomUnitVector(64, random);
    scan.set(0, vector);
    scan.set(3, vector);
    scan.clear(0);
    scan.clear(99); // beyond size: a no-op, not a growth
    expect(scan.size).toBe(4);
    const scores = Array.from(scan.scan(vector));
    expect(scores.slice(0, 3)).toEqual([0, 0, 0]);
    expect(scores[3]).toBeGreaterThan(0);
  });

  it("rejects vectors and queries of the wrong length", () => {
    const scan = new Int8VectorScan(32);
    expect(() => scan.set(0, new Float32Array(16))).toThrow(RangeError);
    expect(() => scan.scan(new Float32Array(48))).toThrow(RangeError);
    expect(() => scan.set(-1, new Float32Array(32))).toThrow(RangeError);
  });
});

describe("Int8VectorScan.topK", () => {
  it("equals a full sort of the JS reference by (score desc, slot asc) over live slots, cut after the k-th and the slots that tie it", () => {
    fc.assert(
      fc.property(
        // Few distinct component values, so ties are common.
        fc.array(fc.array(fc.constantFrom(-0.1, 0, 0.1), { minLength: 16, maxLength: 16 }), { maxLength: 200 }),
        fc.array(fc.constantFrom(-0.1, 0, 0.1), { minLength: 16, maxLength: 16 }),
        fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
        fc.integer({ min: -1, max: 60 }),
        (rawVectors, rawQuery, liveFlags, k) => {
          const vectors = rawVectors.map((vector) => Float32Array.from(vector));
          const query = Float32Array.from(rawQuery);
          const isLive = (slot: number) => liveFlags[slot] === true;
          const norm = DEFAULT_INT8_SCALE * DEFAULT_INT8_SCALE;
          const ranked = referenceScores(vectors, query)
            .map((dot, slot) => ({ slot, score: dot / norm }))
            .filter(({ slot }) => isLive(slot))
            .sort((a, b) => b.score - a.score || a.slot - b.slot);
          const cut = k > 0 && ranked.length >= k ? (ranked[k - 1] as { score: number }).score : undefined;
          // At a cut of 0 the slots scoring 0 (no similarity) go; at any other, the slots tied with the k-th stay.
          const expected =
            cut === undefined ? ranked.slice(0, Math.max(0, k)) : ranked.filter(({ score }) => (cut === 0 ? score > 0 : score >= cut));
          expect(filledScan(vectors, 16).topK(query, k, isLive)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("ranks like float cosine, with close scores, when similarities are well separated", () => {
    const dims = 256;
    const random = mulberry32(42);
    const query = randomUnitVector(dims, random);
    // Vectors at cosine 0.95, 0.90, ... from the query, stored in shuffled slots.
    const targets = Array.from({ length: 19 }, (_, index) => 0.95 - index * 0.05);
    const slots = targets.map((_, index) => (index * 7) % targets.length);
    const vectors: Float32Array[] = [];
    targets.forEach((cosine, index) => {
      const noise = randomUnitVector(dims, random);
      const along = floatDot(noise, query);
      const orthogonal = normalize(noise.map((x, i) => x - along * (query[i] as number)));
      vectors[slots[index] as number] = normalize(
        query.map((x, i) => cosine * x + Math.sqrt(1 - cosine * cosine) * (orthogonal[i] as number)),
      );
    });
    const scan = filledScan(vectors, dims);
    const result = scan.topK(query, targets.length, () => true);
    const floatOrder = vectors.map((vector, slot) => ({ slot, cosine: floatDot(vector, query) })).sort((a, b) => b.cosine - a.cosine);
    expect(result.map(({ slot }) => slot)).toEqual(floatOrder.map(({ slot }) => slot));
    result.forEach(({ score }, index) => {
      expect(Math.abs(score - (floatOrder[index]?.cosine ?? Number.NaN))).toBeLessThan(0.01);
    });
  });
});

describe("Int8VectorScan.similarities", () => {
  it("scores the slots asked for exactly as a scan does, at the int8 extremes and for never-set slots", () => {
    const random = mulberry32(7);
    const dims = 48;
    // Random unit vectors, and ones whose components clamp at ±127.
    const vectors = Array.from({ length: 40 }, (_, index) =>
      index % 4 === 0 ? Float32Array.from({ length: dims }, (_, at) => ((index + at) % 3 === 0 ? 1 : -1)) : randomUnitVector(dims, random),
    );
    const scan = filledScan(vectors, dims);
    const norm = DEFAULT_INT8_SCALE * DEFAULT_INT8_SCALE;
    for (const query of [randomUnitVector(dims, random), Float32Array.from({ length: dims }, (_, at) => (at % 2 === 0 ? -1 : 1))]) {
      const scanned = Array.from(scan.scan(query, new Int32Array(vectors.length)));
      const slots = [39, 0, 17, 4, 4, 1_000];
      expect(scan.similarities(query, slots)).toEqual([...slots.map((slot) => (scanned[slot] ?? 0) / norm)]);
    }
  });
});

describe("Int8VectorScan memory", () => {
  it("grows to 100k vectors of 256 dims and still scores every slot exactly", () => {
    const dims = 256;
    const count = 100_000;
    const random = mulberry32(7);
    const scan = new Int8VectorScan(dims);
    // Keep only a sample of the floats: 100k Float32Arrays would dominate the test's time.
    const sample = new Map<number, Float32Array>();
    const vector = new Float32Array(dims);
    for (let slot = 0; slot < count; slot++) {
      for (let index = 0; index < dims; index++) vector[index] = (random() - 0.5) * 0.2;
      scan.set(slot, vector);
      if (slot % 997 === 0 || slot === count - 1) sample.set(slot, vector.slice());
    }
    const query = randomUnitVector(dims, random);
    const scores = scan.scan(query);
    expect(scores.length).toBe(count);
    const quantizedQuery = Int8VectorScan.quantize(query);
    for (const [slot, stored] of sample) expect(scores[slot]).toBe(int8Dot(Int8VectorScan.quantize(stored), quantizedQuery));
  });

  it("resets the old score area to zero vectors when growth turns it into vector slots", () => {
    const random = mulberry32(8);
    const scan = new Int8VectorScan(16);
    const vector = randomUnitVector(16, random);
    scan.set(0, vector);
    scan.scan(vector); // writes scores just past the current vector capacity
    scan.set(5_000, vector); // grows over that score area
    const scores = scan.scan(vector);
    expect(scores.length).toBe(5_001);
    expect(scores[0]).toBe(scores[5_000]);
    expect(scores.subarray(1, 5_000).every((score) => score === 0)).toBe(true);
  });
});

describe("Int8VectorScan construction", () => {
  it("rejects dims that are not a positive multiple of 16", () => {
    for (const dims of [0, -16, 8, 15, 17, 250, 16.5, Number.NaN]) {
      expect(() => new Int8VectorScan(dims)).toThrow(RangeError);
    }
    expect(() => new Int8VectorScan(16, { scale: 0 })).toThrow(RangeError);
    expect(new Int8VectorScan(384).dims).toBe(384);
  });
});

/** The raw kernel, to test its contract beyond what Int8VectorScan ever stores (e.g. -128). */
const rawKernel = () => instantiateKernel();

/** Vectors per tile of the kernel's layout. */
const TILE = 1_024;

/**
 * Lays vectors out as the kernel reads them (tiles of 1,024, each by pairs
 * of dimensions: pair j's run holds every vector's components 2j and 2j+1)
 * after the query's table of the pairs it uses, runs the raw kernel and
 * returns its scores; written from the layout's description, not from
 * Int8VectorScan.
 */
function rawScan(dims: number, query: readonly number[], vectors: ReadonlyArray<readonly number[]>): number[] {
  const kernel = rawKernel();
  const pairs = Array.from({ length: dims / 2 }, (_, pair) => pair).filter((pair) => query[2 * pair] !== 0 || query[2 * pair + 1] !== 0);
  const base = 32 * pairs.length;
  const tiles = Math.ceil(vectors.length / TILE);
  const out = base + tiles * TILE * dims;
  kernel.memory.grow(Math.ceil((out + 4 * TILE * tiles) / 65_536));
  const bytes = new Int8Array(kernel.memory.buffer);
  const view = new DataView(kernel.memory.buffer);
  pairs.forEach((pair, entry) => {
    for (let lane = 0; lane < 8; lane++) view.setInt16(32 * entry + 2 * lane, query[2 * pair + (lane % 2)] as number, true);
    view.setInt32(32 * entry + 16, 2 * TILE * pair, true);
  });
  vectors.forEach((vector, slot) => {
    const tile = base + Math.floor(slot / TILE) * TILE * dims;
    vector.forEach((value, index) => {
      bytes[tile + 2 * TILE * Math.floor(index / 2) + 2 * (slot % TILE) + (index % 2)] = value;
    });
  });
  kernel.scan(0, pairs.length, base, vectors.length, dims, out);
  return Array.from(new Int32Array(kernel.memory.buffer, out, vectors.length));
}

describe("vector kernel", () => {
  it("scores any int8 vector bytes against any ±127 query, reading only the pairs of dimensions the query uses", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((chunks) =>
          fc.tuple(
            fc.constant(chunks * 16),
            // Mostly zero, as a short query is: the pairs it does not use are left out of its table.
            fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: -127, max: 127 })), {
              minLength: chunks * 16,
              maxLength: chunks * 16,
            }),
            fc.array(fc.array(fc.constantFrom(-128, -127, -1, 0, 1, 126, 127), { minLength: chunks * 16, maxLength: chunks * 16 }), {
              minLength: 1,
              maxLength: 37,
            }),
          ),
        ),
        ([dims, query, vectors]) => {
          const expected = vectors.map((vector) => int8Dot(Int8Array.from(vector), Int8Array.from(query)));
          expect(rawScan(dims, query, vectors)).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("scores every tile, the last one part full, with a sparse query", () => {
    const random = mulberry32(23);
    const dims = 48;
    const byte = () => Math.floor(random() * 256) - 128;
    const vectors = Array.from({ length: 2 * TILE + 77 }, () => Array.from({ length: dims }, byte));
    const query = Array.from({ length: dims }, (_, index) => (index % 5 === 0 ? byte() % 128 : 0));
    expect(rawScan(dims, query, vectors)).toEqual(vectors.map((vector) => int8Dot(Int8Array.from(vector), Int8Array.from(query))));
  });

  it("is exact for the largest-magnitude products over thousands of dimensions", () => {
    const dims = 8192;
    const query = new Array<number>(dims).fill(-127);
    const vectors = [-128, 127, -128, 0, 127, -128].map((value) => new Array<number>(dims).fill(value));
    expect(rawScan(dims, query, vectors)).toEqual(vectors.map((vector) => int8Dot(Int8Array.from(vector), Int8Array.from(query))));
  });

  it("scores every vector 0 for a query that uses no dimension", () => {
    expect(rawScan(32, new Array<number>(32).fill(0), [new Array<number>(32).fill(5), new Array<number>(32).fill(-7)])).toEqual([0, 0]);
  });
});

/** Puts scores into a fresh kernel's memory, with room for the candidates after them. */
function kernelHolding(scores: readonly number[]): {
  kernel: KernelExports;
  area: { outPtr: number; count: number; candidatesPtr: number };
} {
  const kernel = rawKernel();
  const area = { outPtr: 64, count: scores.length, candidatesPtr: 64 + 4 * scores.length };
  kernel.memory.grow(Math.ceil((area.candidatesPtr + 4 * scores.length) / 65_536));
  new Int32Array(kernel.memory.buffer, area.outPtr, scores.length).set(scores);
  return { kernel, area };
}

describe("top-k selection over kernel scores", () => {
  it("collect lists, in order, every slot whose score reaches the threshold", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 40 }), fc.integer({ min: -6, max: 6 }), (scores, threshold) => {
        const { kernel, area } = kernelHolding(scores);
        const found = kernel.collect(area.outPtr, area.count, threshold, area.candidatesPtr);
        const expected = scores.flatMap((score, slot) => (score >= threshold ? [slot] : []));
        expect(Array.from(new Int32Array(kernel.memory.buffer, area.candidatesPtr, found))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("selects exactly what a full pass would, with ties, dead slots and any k", () => {
    fc.assert(
      fc.property(
        // Past 2,048 scores the threshold is sampled; below, every slot is a candidate.
        fc.integer({ min: 0, max: 12_000 }),
        fc.constantFrom(4, 1_000, 4_000_000),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: -1, max: 400 }),
        fc.integer(),
        (count, spread, liveShare, k, seed) => {
          const random = mulberry32(seed);
          const scores = Array.from({ length: count }, () => Math.floor((random() - 0.5) * spread));
          const live = Array.from({ length: count }, () => random() < liveShare);
          const isLive = (slot: number) => live[slot] === true;
          const { kernel, area } = kernelHolding(scores);
          expect(selectTopSlots(kernel, area, k, isLive)).toEqual(topSlots(Int32Array.from(scores), k, isLive));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("stays exact when the sampled threshold lets too few slots through", () => {
    // The sample reads every 20th of 20,480 scores: make exactly those the best, so a
    // sampled threshold admits far fewer slots than it expects, and selection must rerun.
    const scores = Array.from({ length: 20_480 }, (_, slot) => (slot % 20 === 0 ? 1_000 + slot : slot % 97));
    const { kernel, area } = kernelHolding(scores);
    let collects = 0;
    const counting: KernelExports = {
      memory: kernel.memory,
      scan: kernel.scan,
      collect: (...args) => {
        collects++;
        return kernel.collect(...args);
      },
    };
    expect(selectTopSlots(counting, area, 300)).toEqual(topSlots(Int32Array.from(scores), 300));
    expect(collects).toBe(2);
    collects = 0;
    const mostlyDead = (slot: number) => slot % 20 !== 0 || slot < 400;
    expect(selectTopSlots(counting, area, 50, mostlyDead)).toEqual(topSlots(Int32Array.from(scores), 50, mostlyDead));
    expect(collects).toBe(2);
  });
});

describe("a scan shared by block", () => {
  it("gives the single scan's scores, whichever thread claims which block", () => {
    const random = mulberry32(11);
    const vectors = Array.from({ length: SCAN_BLOCK_SLOTS * 2 + 123 }, () => randomUnitVector(32, random));
    const scanner = filledScan(vectors, 32);
    const query = randomUnitVector(32, random);
    const expected = Array.from(scanner.scan(query));
    const scoresOf = (prepared: { outPtr: number; count: number }) =>
      Array.from(new Int32Array(scanner.memory.buffer, prepared.outPtr, prepared.count));

    // This thread alone claims all three blocks; a second helper finds none left.
    let prepared = scanner.prepareScan(query);
    expect(scanner.helpScan(prepared)).toBe(3);
    expect(scanner.helpScan(prepared)).toBe(0);
    waitForAllBlocks(prepared, scanner.progress);
    expect(scoresOf(prepared)).toEqual(expected);

    // The scan thread's kernel (another instance over the same memory, its own scratch) takes them first.
    new Int32Array(scanner.memory.buffer, prepared.outPtr, prepared.count).fill(0);
    prepared = scanner.prepareScan(query);
    const threadKernel = instantiateKernel(scanner.memory);
    expect(scanUnclaimedBlocks(threadKernel, prepared, scanner.progress)).toBe(3);
    expect(scanner.helpScan(prepared)).toBe(0);
    waitForAllBlocks(prepared, scanner.progress);
    expect(scoresOf(prepared)).toEqual(expected);
  });
});

describe("vector-kernel-wasm.ts", () => {
  it("was compiled from the vector-kernel.wat in the tree (scripts/build-vector-kernel.mjs --check compares the bytes too)", async () => {
    const wat = await readFile(new URL("../../src/search/vector-kernel.wat", import.meta.url));
    const digest = createHash("sha256").update(wat).digest("hex");
    expect(digest, "vector-kernel.wat changed since it was compiled: run node scripts/build-vector-kernel.mjs").toBe(
      VECTOR_KERNEL_WAT_SHA256,
    );
  });
});
