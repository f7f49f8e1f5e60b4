import { describe, expect, it } from "vitest";
import type { FileTaskItem } from "../../src/indexer/file-processor.js";
import { FileWorkQueue, TASK_MAX_BYTES, TASK_MAX_FILES } from "../../src/indexer/file-work-queue.js";
import { collectGarbage } from "../helpers/garbage-collection.js";

function file(index: number, size = 100): FileTaskItem {
  return { path: `src/file-${index}.ts`, size, mtimeMs: 1_700_000_000_000 + index, priority: 1 };
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

describe("FileWorkQueue's memory", () => {
  it("holds a deep tree's paths as what each does not share with the one before: under 70 bytes a file where whole paths took ≈ 110", async () => {
    // A monorepo's order: a directory's files side by side, paths of ≈ 90 characters sharing all but the name.
    const monorepoFiles = (): FileTaskItem[] => {
      const files: FileTaskItem[] = [];
      for (let directory = 0; directory < 2000; directory++)
        for (let name = 0; name < 25; name++)
          files.push({
            path: `copy-${directory % 9}/crates/biome_js_analyze/src/lint/nursery/rule_group_${directory}/use_some_rule_${name}.rs`,
            size: 1000 + name,
            mtimeMs: 1_700_000_000_000.5 + name,
            priority: 130,
          });
      return files;
    };
    const expectedFirst = monorepoFiles()[0];
    const expectedLast = monorepoFiles().at(-1);
    // The heap and the typed arrays' memory, which is outside it.
    const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    await collectGarbage();
    const before = held();
    const queue = new FileWorkQueue(monorepoFiles());
    await collectGarbage();
    const bytesPerFile = (held() - before) / queue.remaining;

    expect(bytesPerFile).toBeLessThan(70);
    expect(queue.take()?.[0]).toEqual(expectedFirst);
    expect(queue.takeAll().at(-1)).toEqual(expectedLast);
  });

  it("rebuilds every path exactly across blocks, prefixes that end inside a character, and paths shorter than the one before", () => {
    const paths = ["a/b/c.ts", "a/b/cd.ts", "a/b", "a/\u{1F600}x.ts", "a/\u{1F601}y.ts", "é/f.ts", "é/f.tsx", "z"];
    const files = Array.from({ length: 9000 }, (_, index) => ({
      path: `${paths[index % paths.length]}${Math.floor(index / 3)}`,
      size: index,
      mtimeMs: index + 0.5,
      priority: 9000 - index,
    }));
    const queue = new FileWorkQueue(files.map((item) => ({ ...item })));
    expect(queue.takeAll()).toEqual(files);
  });
});
