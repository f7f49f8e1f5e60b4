import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { collectTheDroppedWalk } from "../../src/indexer/walk-collection.js";

const MB = 1024 * 1024;

/**
 * Allocates as a walk does: many small objects, a block of them kept alive
 * across several young collections at a time, so that the young generation
 * grows and its survivors fill old-generation pages that are then dead.
 */
function churnLikeAWalk(): number {
  let kept: Array<{ path: string; size: number }> = [];
  let total = 0;
  for (let index = 0; index < 3_000_000; index++) {
    kept.push({ path: `dir/${index}`, size: index });
    if (kept.length >= 200_000) {
      total += kept.length;
      kept = [];
    }
  }
  return total + kept.length;
}

describe("the collection at a large first index's walk's end", () => {
  it("gives back the pages the walk made V8 commit, not only what is dead", () => {
    expect(churnLikeAWalk()).toBe(3_000_000);
    const before = getHeapStatistics();
    // What the test is about: pages committed beyond what is in use (a plain full collection leaves them).
    expect(before.total_heap_size - before.used_heap_size).toBeGreaterThan(48 * MB);
    collectTheDroppedWalk();
    const after = getHeapStatistics();
    expect(after.total_heap_size - after.used_heap_size).toBeLessThan(16 * MB);
  });
});
