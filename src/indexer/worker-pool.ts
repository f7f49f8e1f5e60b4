import { createRequire } from "node:module";
import type { Piscina } from "piscina";
import { boundWasmOptimizerMemory } from "../parsing/wasm-optimizer-memory.js";
import { workerEntryPath } from "../worker-entry.js";
import type { FileTask, ProcessedFile } from "./file-processor.js";

export const fileWorkerPath = (): string => workerEntryPath("file-worker-loader.cjs");

/**
 * Tasks each worker holds at once. A worker handed one task at a time
 * idles whenever the main thread is busy committing, since only the main
 * thread can hand it the next; with a few queued inside the worker it keeps
 * parsing meanwhile (cold index of 27,865 files: 22.9–25.2 s → 20.4–21.0 s).
 */
export const TASKS_PER_THREAD = 4;

/**
 * Each worker's V8 heap is bounded. What a task keeps is a few files' text
 * and results (a file is at most `maxFileSize`), but V8 sizes a heap for
 * speed when nothing bounds it: each worker grew to ~220 MB of heap during a
 * cold index of biome (its live data stayed under ~60 MB), beside the main
 * thread's. A bounded heap collects sooner; a worker that would exceed it
 * fails its task, and the indexer retries that task's files one by one.
 */
export const WORKER_HEAP_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16 } as const;

export interface FileWorkerPoolOptions {
  threads: number;
  /** Tasks queued or running at once per thread. */
  tasksPerThread?: number;
}

/**
 * A piscina pool running `workers/file-worker`. A worker that crashes is
 * replaced by piscina; its batch is rejected and the caller retries the
 * files one by one so a single bad file cannot take others down with it.
 */
export class FileWorkerPool {
  private readonly pool: Piscina<FileTask, ProcessedFile[]>;
  private closing = false;

  constructor(options: FileWorkerPoolOptions) {
    // Before the threads start: they compile grammars under the options this thread sets.
    boundWasmOptimizerMemory();
    // Required when a pool starts, not imported: a run with nothing to index, or a handful of files
    // processed on the main thread (`sylk index` after an edit), never loads piscina's modules.
    const { Piscina: Pool } = createRequire(import.meta.url)("piscina") as typeof import("piscina");
    this.pool = new Pool({
      filename: fileWorkerPath(),
      minThreads: options.threads,
      maxThreads: options.threads,
      concurrentTasksPerWorker: options.tasksPerThread ?? TASKS_PER_THREAD,
      idleTimeout: 30_000,
      resourceLimits: WORKER_HEAP_LIMITS,
    });
    // Closing with tasks in flight (an index run that failed, e.g. on a full disk) fails those
    // tasks, but answers the workers had already sent, queued while the main thread was busy,
    // still arrive: piscina reports each as an 'error' event, which unheard ends the process.
    this.pool.on("error", (error: unknown) => {
      if (!this.closing) throw error;
    });
  }

  /** Worker threads alive now (none once closed). */
  get threadCount(): number {
    return this.pool.threads.length;
  }

  run(task: FileTask, signal?: AbortSignal): Promise<ProcessedFile[]> {
    return this.pool.run(task, signal ? { signal } : {});
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.pool.destroy();
  }
}
