import { describe, expect, it } from "vitest";
import { Int8VectorScan } from "../../src/search/int8-vector-scan.js";
import { topSlots } from "../../src/search/top-slots.js";
import { claimBlock, instantiateKernel, SCAN_BLOCK_SLOTS, scanBlock } from "../../src/search/vector-kernel.js";
import { VectorScanThread } from "../../src/search/vector-scan-thread.js";
import { mulberry32, randomUnitVector } from "../helpers/random-vectors.js";

describe("VectorScanThread", () => {
  it("waits for a block another thread claimed, then ranks every block", async () => {
    const random = mulberry32(5);
    const scanner = new Int8VectorScan(32);
    for (let slot = 0; slot < SCAN_BLOCK_SLOTS * 2 + 7; slot++) scanner.set(slot, randomUnitVector(32, random));
    const query = randomUnitVector(32, random);
    const expected = topSlots(Int32Array.from(scanner.scan(query)), 5);
    const thread = new VectorScanThread(scanner.memory, scanner.progress);
    try {
      const prepared = scanner.prepareScan(query);
      // This thread holds block 0 (as the main thread does while it helps) and has not scanned it yet.
      const held = claimBlock(prepared, scanner.progress);
      expect(held).toBe(0);
      let answered = false;
      const answer = thread.scan(prepared, 5).then((slots) => {
        answered = true;
        return slots;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(answered).toBe(false); // it scanned blocks 1 and 2, and waits for block 0
      scanBlock(instantiateKernel(scanner.memory), prepared, held as number, scanner.progress);
      expect(await answer).toEqual(expected);
    } finally {
      await thread.close();
    }
  });
});
