import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { FileTaskItem } from "../../src/indexer/file-processor.js";
import { FileWorkQueue, TASK_MAX_BYTES, TASK_MAX_FILES } from "../../src/indexer/file-work-queue.js";

function file(index: number, size = 100): FileTaskItem {
  return { path: `src/file-${index}.ts`, size, mtimeMs: 1_700_000_000_000 + index, priority: 1 };
}

/**
 * A full collection, so that what nothing references any more is gone. After
 * a turn of the event loop: a WeakRef's target is kept until the job that
 * made or read it ends.
 */
async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("FileWorkQueue", () => {
  it("hands out the files in order, a task at a time, each within the task bounds", () => {
    const files = Array.from({ length: 100 }, (_, index) => file(index, index === 40 ? TASK_MAX_BYTES * 2 : 1000));
    const queue = new FileWorkQueue([...files]);
    const tasks: FileTaskItem[][] = [];
    for (let task = queue.take(); task; task = queue.take()) tasks.push(task);

    expect(tasks.flat()).toEqual(files);
    expect(tasks.map((task) => task.length)).toEqual([32, 8, 1, 32, 27]);
    for (const task of tasks) {
      expect(task.length).toBeLessThanOrEqual(TASK_MAX_FILES);
      // A file larger than the byte bound goes alone.
      if (task.length > 1) expect(task.reduce((bytes, item) => bytes + item.size, 0)).toBeLessThanOrEqual(TASK_MAX_BYTES);
    }
    expect(queue.remaining).toBe(0);
    expect(queue.take()).toBeUndefined();
  });

  it("keeps no object of the files it was given, and hands out every file equal to its entry", async () => {
    const given: Array<WeakRef<FileTaskItem>> = [];
    const files = Array.from({ length: 5000 }, (_, index) => file(index, 100 + index));
    const queue = (() => {
      // Paths of other lengths and characters, and numbers that are not small integers.
      const entries = files.map((item, index) => ({
        ...item,
        path: `${item.path}/é${"x".repeat(index % 50)}`,
        mtimeMs: item.mtimeMs + 0.25,
      }));
      for (const entry of entries) given.push(new WeakRef(entry));
      const expected = entries.map((entry) => ({ ...entry }));
      return { queue: new FileWorkQueue(entries), expected };
    })();
    expect(queue.queue.take()).toHaveLength(TASK_MAX_FILES);

    await collectGarbage();
    expect(given.filter((reference) => reference.deref() !== undefined)).toHaveLength(0);
    expect(queue.queue.remaining).toBe(5000 - TASK_MAX_FILES);
    expect(queue.queue.takeAll()).toEqual(queue.expected.slice(TASK_MAX_FILES));
    expect(queue.queue.remaining).toBe(0);
    expect(queue.queue.take()).toBeUndefined();
  });
});
