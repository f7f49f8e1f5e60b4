import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChangeBatcher } from "../../src/indexer/change-batcher.js";

// The watcher's debounce on vitest's clock: what makes a batch does not depend on how busy the machine is.
let batches: string[][];
let batcher: ChangeBatcher;
beforeEach(() => {
  vi.useFakeTimers();
  batches = [];
  batcher = new ChangeBatcher({ debounceMs: 300, maxWaitMs: 2_000, onBatch: (paths) => batches.push(paths) });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ChangeBatcher", () => {
  it("reports the changes of one burst as one batch, each path once, after the quiet time", () => {
    batcher.add("src/a.ts");
    vi.advanceTimersByTime(100);
    batcher.add("src/new/d.ts");
    batcher.add("src/a.ts");
    vi.advanceTimersByTime(100);
    batcher.add("src/b.ts");
    vi.advanceTimersByTime(299);
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([["src/a.ts", "src/new/d.ts", "src/b.ts"]]);
  });

  it("starts a new batch after one went", () => {
    batcher.add("src/a.ts");
    vi.advanceTimersByTime(300);
    batcher.add("src/a.ts");
    vi.advanceTimersByTime(300);
    expect(batches).toEqual([["src/a.ts"], ["src/a.ts"]]);
  });

  it("reports a stream of changes at the latest maxWait after its first, and the rest after their own quiet time", () => {
    for (let at = 0; at < 2_500; at += 100) {
      batcher.add(`file-${at}`);
      vi.advanceTimersByTime(100);
    }
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(20);
    expect(batches[0]?.at(-1)).toBe("file-1900");
    vi.advanceTimersByTime(300);
    expect(batches[1]).toEqual(["file-2000", "file-2100", "file-2200", "file-2300", "file-2400"]);
  });

  it("reports nothing after cancel", () => {
    batcher.add("src/a.ts");
    batcher.cancel();
    vi.advanceTimersByTime(5_000);
    expect(batches).toEqual([]);
  });
});
