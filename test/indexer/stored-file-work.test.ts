import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileTaskItem } from "../../src/indexer/file-processor.js";
import { type FileWork, FileWorkQueue, TASK_MAX_BYTES } from "../../src/indexer/file-work-queue.js";
import { byPriority } from "../../src/indexer/priority.js";
import type { ScannedFile } from "../../src/indexer/scan-results.js";
import { StoredFileWork } from "../../src/indexer/stored-file-work.js";
import { WalkWorkFile } from "../../src/store/walk-work-file.js";
import { mulberry32 } from "../helpers/random-vectors.js";

function everyTask(work: FileWork): FileTaskItem[][] {
  const tasks: FileTaskItem[][] = [];
  for (let task = work.take(); task; task = work.take()) tasks.push(task);
  return tasks;
}

/**
 * Files as a walk meets them: a directory's files together (by name), its
 * subdirectories after them, depth first. Names chosen so that walk order
 * and path order disagree ('b.ts' and 'b0.ts' beside a directory 'b'), and
 * so that UTF-16 order and code point order disagree ('😀' is past the
 * Basic Multilingual Plane, 'ﬀ' is U+FB00: in UTF-16 the first sorts
 * before the second, in UTF-8 after), with a few priorities and sizes
 * around the task's byte bound.
 */
function walkedTree(seed: number): ScannedFile[] {
  const next = mulberry32(seed);
  const names = ["b.ts", "b0.ts", "B.md", "a-b.json", "é.ts", "😀.rs", "ﬀ.rs", "z.go", "b", "b.", "b-"];
  const files: ScannedFile[] = [];
  const walk = (prefix: string, depth: number): void => {
    const here = names.filter(() => next() < 0.6).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of here)
      files.push({
        path: `${prefix}${name}`,
        size: next() < 0.05 ? TASK_MAX_BYTES - 10 : Math.floor(next() * 5000),
        mtimeMs: 1_700_000_000_000 + next() * 1e9,
        priority: [0, 10, 30, 130][Math.floor(next() * 4)] as number,
      });
    if (depth === 0) return;
    for (const directory of ["b", "b0", "c", "😀", "ﬀ"].filter(() => next() < 0.7)) walk(`${prefix}${directory}/`, depth - 1);
  };
  walk("", 3);
  return files;
}

const item = ({ path, size, mtimeMs, priority }: FileTaskItem): FileTaskItem => ({ path, size, mtimeMs, priority });

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-walk-work-"));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe("StoredFileWork", () => {
  it("hands out a walk's files in byPriority order, in the tasks a queue of them sorted would make, holding one file ahead", () => {
    for (const [seed, inMemory] of [
      [1, false],
      [2, true],
      [3, false],
      [4, true],
      [5, false],
    ] as const) {
      const walked = walkedTree(seed);
      const file = WalkWorkFile.open(inMemory ? undefined : directory);
      for (const scanned of walked) file.add(scanned);
      // Counts the rows read back from the scratch file: at most one more than the files handed out.
      const readRow = file.next.bind(file);
      let read = 0;
      file.next = () => {
        read++;
        return readRow();
      };
      const work = new StoredFileWork(file);
      expect(work.remaining).toBe(walked.length);

      const sorted = [...walked].sort(byPriority).map(item);
      const expected = everyTask(new FileWorkQueue(sorted));
      const tasks: FileTaskItem[][] = [];
      let handedOut = 0;
      for (let task = work.take(); task; task = work.take()) {
        handedOut += task.length;
        expect(read - handedOut).toBeLessThanOrEqual(1);
        tasks.push(task);
      }
      expect(tasks).toEqual(expected);
      expect(read).toBe(walked.length);
      expect(work.remaining).toBe(0);
    }
  });

  it("keeps its files in an owner-only scratch file beside the database, removed once the last is taken", () => {
    const file = WalkWorkFile.open(directory);
    const [scratch] = readdirSync(directory);
    expect(scratch).toMatch(new RegExp(`^walk-work-${process.pid}-\\d+\\.db$`));
    expect(statSync(join(directory, scratch as string)).mode & 0o777).toBe(0o600);
    for (const scanned of walkedTree(7)) file.add(scanned);
    const work = new StoredFileWork(file);
    work.takeAll();
    expect(readdirSync(directory)).toEqual([]);
    expect(work.take()).toBeUndefined();
  });

  it("removes its scratch file when closed part way, and then hands out nothing", () => {
    const file = WalkWorkFile.open(directory);
    for (const scanned of walkedTree(8)) file.add(scanned);
    const work = new StoredFileWork(file);
    expect(work.take()?.length).toBeGreaterThan(0);
    work.close();
    expect(readdirSync(directory)).toEqual([]);
    expect(work.remaining).toBe(0);
    expect(work.take()).toBeUndefined();
  });

  it("removes the scratch files of processes that are gone, not those of one that runs", () => {
    const gone = join(directory, "walk-work-999999999-0.db");
    const running = join(directory, `walk-work-${process.ppid}-3.db`);
    writeFileSync(gone, "");
    writeFileSync(running, "");
    WalkWorkFile.open(directory).close();
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(running)).toBe(true);
  });

  it("is empty and holds no file when the walk met nothing to index", () => {
    const work = new StoredFileWork(WalkWorkFile.open(directory));
    expect(work.remaining).toBe(0);
    expect(work.take()).toBeUndefined();
    expect(readdirSync(directory)).toEqual([]);
  });
});
