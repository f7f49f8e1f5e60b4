import { describe, expect, it } from "vitest";
import type { FileTaskItem } from "../../src/indexer/file-processor.js";
import type { FileWorkQueue } from "../../src/indexer/file-work-queue.js";
import { byPriority } from "../../src/indexer/priority.js";
import type { ScannedFile } from "../../src/indexer/scan-results.js";
import { WorkInWalkOrder } from "../../src/indexer/work-in-walk-order.js";
import { mulberry32 } from "../helpers/random-vectors.js";

function everyTask(queue: FileWorkQueue): FileTaskItem[] {
  const files: FileTaskItem[] = [];
  for (let task = queue.take(); task; task = queue.take()) files.push(...task);
  return files;
}

/**
 * Files as a walk meets them: a directory's files together (by name), its
 * subdirectories after them, depth first. Names chosen so that walk order
 * and path order disagree ('b.ts' and 'b0.ts' beside a directory 'b', a
 * name past the Basic Multilingual Plane), with a few priorities.
 */
function walkedTree(seed: number): ScannedFile[] {
  const next = mulberry32(seed);
  const names = ["b.ts", "b0.ts", "B.md", "a-b.json", "é.ts", "😀.rs", "z.go", "b", "b.", "b-"];
  const files: ScannedFile[] = [];
  const walk = (prefix: string, depth: number): void => {
    const here = names.filter(() => next() < 0.6).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of here)
      files.push({
        path: `${prefix}${name}`,
        size: Math.floor(next() * 5000),
        mtimeMs: 1_700_000_000_000 + Math.floor(next() * 1e9),
        priority: [0, 10, 30, 130][Math.floor(next() * 4)] as number,
      });
    if (depth === 0) return;
    for (const directory of ["b", "b0", "c", "😀"].filter(() => next() < 0.7)) walk(`${prefix}${directory}/`, depth - 1);
  };
  walk("", 3);
  return files;
}

describe("WorkInWalkOrder", () => {
  it("hands out the files a walk met in priority order, then path order, as sorting them all would", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const walked = walkedTree(seed);
      const work = new WorkInWalkOrder();
      for (const file of walked) work.add(file);
      expect(work.count).toBe(walked.length);

      const expected = [...walked].sort(byPriority).map(({ path, size, mtimeMs, priority }) => ({ path, size, mtimeMs, priority }));
      expect(everyTask(work.toQueue())).toEqual(expected);
    }
  });

  it("gives an empty queue when the walk met nothing to index", () => {
    expect(new WorkInWalkOrder().toQueue().remaining).toBe(0);
  });
});
