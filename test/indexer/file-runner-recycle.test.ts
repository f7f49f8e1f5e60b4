import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { FileTask, FileTaskItem, ProcessedFile } from "../../src/indexer/file-processor.js";
import { FileRunner, RECYCLE_WORKERS_AFTER_FILES } from "../../src/indexer/file-runner.js";
import { FileWorkQueue, TASK_MAX_FILES } from "../../src/indexer/file-work-queue.js";
import type { FileWorkerPool } from "../../src/indexer/worker-pool.js";

function file(index: number): FileTaskItem {
  return { path: `src/file-${index}.ts`, size: 100, mtimeMs: 1_700_000_000_000 + index, priority: 1 };
}

/** A pool that answers each file at once, and records which pool ran it and whether it was open then. */
class RecordingPool {
  closed = false;
  readonly ran: string[] = [];
  constructor(
    readonly id: number,
    private readonly alive: Set<number>,
  ) {
    alive.add(id);
  }
  get threadCount(): number {
    return this.closed ? 0 : 1;
  }
  async run(task: FileTask): Promise<ProcessedFile[]> {
    if (this.closed) throw new Error(`pool ${this.id} ran a task after it was closed`);
    // Only one pool's threads may be alive at a time: a new pool starts once the old one is closed.
    expect([...this.alive]).toEqual([this.id]);
    await new Promise((resolve) => setImmediate(resolve));
    this.ran.push(...task.files.map((item) => item.path));
    return task.files.map((item) => ({ ...item, status: "skipped", reason: "test" }) as unknown as ProcessedFile);
  }
  async close(): Promise<void> {
    this.closed = true;
    this.alive.delete(this.id);
  }
}

function runnerWith(recycleWorkersAfterFiles?: number): { runner: FileRunner; pools: RecordingPool[] } {
  const pools: RecordingPool[] = [];
  const alive = new Set<number>();
  const runner = new FileRunner({
    root: "/nowhere",
    config: defaultConfig().index,
    createPool: () => {
      const pool = new RecordingPool(pools.length, alive);
      pools.push(pool);
      return pool as unknown as FileWorkerPool;
    },
    embeddingDimensions: null,
    ...(recycleWorkersAfterFiles === undefined ? {} : { recycleWorkersAfterFiles }),
  });
  return { runner, pools };
}

async function processEvery(runner: FileRunner, files: FileTaskItem[]): Promise<string[]> {
  const done: string[] = [];
  for await (const batch of runner.processAll(new FileWorkQueue(files), undefined)) done.push(...batch.map((result) => result.path));
  return done;
}

describe("FileRunner's worker pools", () => {
  it("closes a pool once it has been given its share of files and starts a new one for the rest", async () => {
    const files = Array.from({ length: 1000 }, (_, index) => file(index));
    const { runner, pools } = runnerWith(300);
    const done = await processEvery(runner, files);
    await runner.close();

    expect(done.sort()).toEqual(files.map((item) => item.path).sort());
    // 300 files a pool, given a task (≤ 32 files) at a time: the task that crosses 300 is the pool's last.
    expect(pools.length).toBe(4);
    for (const pool of pools) {
      expect(pool.closed).toBe(true);
      expect(pool.ran.length).toBeLessThan(300 + TASK_MAX_FILES);
    }
    expect(pools.slice(0, 3).every((pool) => pool.ran.length >= 300)).toBe(true);
  });

  it("runs a project with fewer files than the default share on one pool", async () => {
    const count = RECYCLE_WORKERS_AFTER_FILES - 1;
    const files = Array.from({ length: count }, (_, index) => file(index));
    const { runner, pools } = runnerWith();
    expect((await processEvery(runner, files)).length).toBe(count);
    await runner.close();
    expect(pools.length).toBe(1);
  });
});
