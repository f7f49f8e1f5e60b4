import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { type CollectableHeap, DIRECTORIES_PER_LOOK, WALK_HEAP_SLACK_BYTES, WalkHeapBound } from "../../src/indexer/walk-collection.js";

const MB = 1 << 20;

/** A heap that grows by `perDirectory` bytes a directory and keeps `live` through a collection. */
function growingHeap(perDirectory: number, live: number) {
  let used = live;
  let looks = 0;
  const heap: CollectableHeap = {
    used: () => {
      looks++;
      return used;
    },
    collect: () => {
      used = live;
    },
  };
  return {
    heap,
    grow: () => {
      used += perDirectory;
    },
    get used() {
      return used;
    },
    get looks() {
      return looks;
    },
  };
}

describe("a full walk's heap bound", () => {
  it("looks every so many directories and collects once the heap has grown by its slack past the last collection", () => {
    // 64 KB a directory: the slack (32 MB) is 512 directories' growth, two looks.
    const fake = growingHeap(64 << 10, 15 * MB);
    const bound = new WalkHeapBound(fake.heap);
    let highest = 0;
    for (let directory = 0; directory < 100 * DIRECTORIES_PER_LOOK; directory++) {
      fake.grow();
      bound.noteDirectory();
      highest = Math.max(highest, fake.used);
    }
    expect(fake.looks).toBe(1 + 100 + bound.collections);
    expect(bound.collections).toBe(50);
    // Never more than the slack and one look's growth past what is live.
    expect(highest - 15 * MB).toBeLessThanOrEqual(WALK_HEAP_SLACK_BYTES + DIRECTORIES_PER_LOOK * (64 << 10));
  });

  it("runs no collection for a walk that drops less than its slack", () => {
    const fake = growingHeap(8 << 10, 15 * MB);
    const bound = new WalkHeapBound(fake.heap);
    // biome: 26,549 directories.
    for (let directory = 0; directory < 3_000; directory++) {
      fake.grow();
      bound.noteDirectory();
    }
    expect(bound.collections).toBe(0);
  });

  it("holds this thread's real heap near what is live while garbage outlives young collections", () => {
    const bound = new WalkHeapBound(undefined, 8 * MB);
    // Each directory's objects stay reachable for a batch of directories, as a batch of states does, then are dropped.
    const batch: string[][] = [];
    let highest = 0;
    for (let directory = 0; directory < 16 * DIRECTORIES_PER_LOOK; directory++) {
      batch.push(Array.from({ length: 256 }, (_, index) => `directory ${directory} name ${index} ${"x".repeat(64)}`));
      if (batch.length > 512) batch.shift();
      bound.noteDirectory();
      if (directory % 64 === 0) highest = Math.max(highest, getHeapStatistics().used_heap_size);
    }
    expect(bound.collections).toBeGreaterThan(0);
    // The batch (512 directories of ≈ 40 KB: ≈ 20 MB) is live; the garbage on top of it is bounded by the slack and a
    // look's allocations (256 directories: ≈ 10 MB), whatever V8's own limit.
    // What is live, with the batch still held: used after a full collection.
    setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
    const live = getHeapStatistics().used_heap_size;
    expect(batch).toHaveLength(512);
    // Left to V8 the same loop reached ≈ 100 MB past what is live; bounded, ≈ 16.
    expect(highest).toBeLessThan(live + 8 * MB + 40 * MB);
  });
});
