import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { FileTask, FileTaskItem, ProcessedFile } from "../../src/indexer/file-processor.js";
import { FileRunner } from "../../src/indexer/file-runner.js";
import { FileWorkQueue, TASK_MAX_FILES } from "../../src/indexer/file-work-queue.js";
import type { FileWorkerPool } from "../../src/indexer/worker-pool.js";

function file(index: number): FileTaskItem {
  return { path: `src/file-${String(index).padStart(5, "0")}.ts`, size: 100, mtimeMs: 1_700_000_000_000 + index, priority: 1 };
}

/** A pool that answers each task on the next turn of the event loop, counting the tasks given and those running. */
class CountingPool {
  given = 0;
  running = 0;
  mostRunning = 0;
  readonly threadCount = 2;
  async run(task: FileTask): Promise<ProcessedFile[]> {
    this.given++;
    this.running++;
    this.mostRunning = Math.max(this.mostRunning, this.running);
    await new Promise((resolve) => setImmediate(resolve));
    this.running--;
    return task.files.map((item) => ({ ...item, status: "skipped", reason: "test" }) as unknown as ProcessedFile);
  }
  async close(): Promise<void> {}
}

function runnerOn(pool: CountingPool): FileRunner {
  const config = { ...defaultConfig().index, maxConcurrency: 2, workerThreads: 2, batchSize: 100 };
  return new FileRunner({ root: "/nowhere", config, createPool: () => pool as unknown as FileWorkerPool, embeddingDimensions: null });
}

/** Turns of the event loop, as a commit that awaits between its slices gives them. */
async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe("FileRunner's feeding of the workers", () => {
  it("hands out tasks as tasks end while the caller holds a batch, up to its bound", async () => {
    const files = Array.from({ length: 3_000 }, (_, index) => file(index));
    const pool = new CountingPool();
    const runner = runnerOn(pool);
    const batches = runner.processAll(new FileWorkQueue(files), undefined);
    const first = await batches.next();
    expect(first.done).toBe(false);
    const givenAtYield = pool.given;
    // The caller commits for a while: the workers' tasks end meanwhile, and new ones go out as they do.
    await turns(50);
    const givenAfterCommit = pool.given;
    expect(givenAfterCommit).toBeGreaterThan(givenAtYield);
    // Running plus finished and not yet yielded: at most twice the 8 tasks in flight (2 threads × 4 tasks).
    const yielded = (first.value as ProcessedFile[]).length;
    expect((givenAfterCommit * TASK_MAX_FILES - yielded) / TASK_MAX_FILES).toBeLessThanOrEqual(16);
    expect(pool.mostRunning).toBeLessThanOrEqual(8);

    const seen = new Set((first.value as ProcessedFile[]).map((result) => result.path));
    for await (const batch of batches) for (const result of batch) seen.add(result.path);
    expect(seen.size).toBe(files.length);
    expect(pool.mostRunning).toBeLessThanOrEqual(8);
  });

  it("gives no task once the caller stops reading", async () => {
    const files = Array.from({ length: 3_000 }, (_, index) => file(index));
    const pool = new CountingPool();
    const batches = runnerOn(pool).processAll(new FileWorkQueue(files), undefined);
    await batches.next();
    await batches.return(undefined);
    const given = pool.given;
    await turns(50);
    expect(pool.given).toBe(given);
    expect(pool.running).toBe(0);
  });

  it("passes on an error from taking work after a task ended, instead of waiting for ever", async () => {
    const queue = new FileWorkQueue(Array.from({ length: 3_000 }, (_, index) => file(index)));
    let taken = 0;
    // A scratch file of stored work that cannot be read any more, past the first tasks.
    const failing = {
      get remaining() {
        return queue.remaining;
      },
      take() {
        if (++taken > 12) throw new Error("scratch file unreadable");
        return queue.take();
      },
      takeAll: () => queue.takeAll(),
      close: () => queue.close(),
    };
    const batches = runnerOn(new CountingPool()).processAll(failing, undefined);
    const drained = (async () => {
      for await (const _batch of batches) {
        // drain
      }
    })();
    await expect(drained).rejects.toThrow("scratch file unreadable");
  });
});
