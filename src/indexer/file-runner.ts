import type { IndexConfig } from "../config/schema.js";
import type { FileBatchProcessor } from "./file-batch.js";
import { failedFile, type FileTask, type FileTaskItem, type ProcessedFile } from "./file-processor.js";
import type { FileWork } from "./file-work-queue.js";
import type { IndexPause } from "./index-pause.js";
import { TASKS_PER_THREAD, type FileWorkerPool } from "./worker-pool.js";

export interface FileRunnerDeps {
  root: string;
  config: IndexConfig;
  /** Created only when there is work for it. */
  createPool: () => FileWorkerPool;
  /**
   * A handful of files may be processed on this thread instead of starting
   * the workers (`sylk index` after an edit); off where a screen must stay
   * responsive.
   */
  processSmallWorkInline?: boolean;
  /** Dimensions for the built-in embedder, computed in the workers; null when vectors come from elsewhere. */
  embeddingDimensions: number | null;
  /** How long the worker threads outlive the run that used them (`WORKER_LINGER_MS` by default). */
  workerLingerMs?: number;
  /** Files a pool is given before it is closed and a new one started (`RECYCLE_WORKERS_AFTER_FILES` by default). */
  recycleWorkersAfterFiles?: number;
}

/**
 * At most this many files are processed on the main thread when the workers
 * are not running: starting them (two threads, their modules, tree-sitter)
 * took ~200 ms, longer than parsing a few files here.
 */
const INLINE_FILE_LIMIT = 8;

/**
 * The worker threads end this long after the run that used them: each holds
 * its own V8 heap and tree-sitter's WebAssembly memory (≈ 250 MB apiece
 * after a cold index of a 28k-file repository, kept for the whole session
 * when they lived on), while a burst of watcher refreshes still finds them
 * running. Starting them again costs ≈ 200 ms of a background thread.
 */
export const WORKER_LINGER_MS = 5_000;

/**
 * A pool given this many files is closed, once its running tasks finish,
 * and a new one started for the rest. A worker's live heap does not grow
 * with the files it has processed, but its committed heap at its highest
 * and tree-sitter's WebAssembly memory (whose allocator never gives a page
 * back) do, and only a thread that ends gives them back. A restart costs
 * the new threads' start and warm-up (compiles, tree-sitter's runtime): a
 * second or so of CPU, which 32k files' work (tens of seconds) dwarfs, and
 * a project with fewer files never pays it (docs/DESIGN-NOTES.md, "What
 * still grows in a first index, taken apart").
 */
export const RECYCLE_WORKERS_AFTER_FILES = 32_768;

/** Tasks running and finished but not yet yielded, at most, as a multiple of the tasks running at once. */
const HELD_TASKS_FACTOR = 2;

/**
 * Runs files through `processFile` for the indexer: on the worker pool,
 * which starts when there is work and ends once runs stop needing it, or
 * for a handful of files on this thread.
 */
export class FileRunner {
  private pool: FileWorkerPool | undefined;
  private inline: FileBatchProcessor | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: FileRunnerDeps) {}

  /** The worker threads are running (between a run's start and the end of its linger). */
  get workersRunning(): boolean {
    return this.pool !== undefined;
  }

  /** Starts the worker threads ahead of the work (they load while the tree is walked). */
  startWorkers(): FileWorkerPool {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    this.pool ??= this.deps.createPool();
    return this.pool;
  }

  /** A run is over: the threads end unless another run wants them within the linger. */
  releaseLater(): void {
    if (!this.pool) return;
    clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => void this.close(), this.deps.workerLingerMs ?? WORKER_LINGER_MS);
    // A process with nothing else to do (`sylk index` done) does not wait for it.
    this.releaseTimer.unref();
  }

  /** Stops the worker threads now. */
  async close(): Promise<void> {
    clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  /**
   * Runs the queue's files on the pool, a bounded number of tasks at a
   * time, and yields results in batches of `batchSize` files for the
   * writer. A task that ends hands out the next at once, its results kept
   * for the caller apart from the tasks in flight (docs/DESIGN-NOTES.md,
   * "Tasks go out as tasks end, not as the caller reads"); tasks running,
   * and finished but not yet yielded, are bounded. On abort no new task starts; what is running
   * finishes and is still committed; once the caller stops reading, none
   * starts either. The worker threads start only when there is work.
   * While `pause` is set the workers wait between files (work done on this
   * thread does not: see `IndexPause`).
   */
  async *processAll(work: FileWork, signal: AbortSignal | undefined, pause?: IndexPause): AsyncGenerator<ProcessedFile[]> {
    if (work.remaining === 0) return;
    if (!this.pool && this.deps.processSmallWorkInline && work.remaining <= INLINE_FILE_LIMIT) {
      // Imported here: tree-sitter's runtime is loaded only by a run that parses on this thread.
      this.inline ??= new (await import("./file-batch.js")).FileBatchProcessor();
      yield await this.inline.process(this.task(work.takeAll()));
      return;
    }
    let pool = this.startWorkers();
    // Working threads (maxConcurrency caps them), each with its tasks queued ahead.
    const inFlightLimit = Math.max(1, Math.min(this.deps.config.maxConcurrency, this.deps.config.workerThreads)) * TASKS_PER_THREAD;
    const recycleAfter = this.deps.recycleWorkersAfterFiles ?? RECYCLE_WORKERS_AFTER_FILES;
    const finished: ProcessedFile[][] = [];
    let running = 0;
    let givenToPool = 0;
    let closed = false;
    // An error from taking work in a task's callback, rethrown to the caller (a scratch file that cannot be read).
    let failure: { error: unknown } | undefined;
    let wake: (() => void) | undefined;
    // Tasks go out as tasks end, not as the caller reads their results: unread results take no task's place.
    const feed = (): void => {
      while (
        !closed &&
        !signal?.aborted &&
        running < inFlightLimit &&
        running + finished.length < HELD_TASKS_FACTOR * inFlightLimit &&
        work.remaining > 0 &&
        givenToPool < recycleAfter
      ) {
        const files = work.take() as FileTaskItem[];
        givenToPool += files.length;
        running++;
        void this.runTask(pool, files, pause).then((results) => {
          running--;
          finished.push(results);
          try {
            feed();
          } catch (error) {
            failure ??= { error };
          }
          wake?.();
        });
      }
    };
    let buffer: ProcessedFile[] = [];
    try {
      feed();
      for (;;) {
        if (failure) throw failure.error;
        for (let results = finished.shift(); results; results = finished.shift()) {
          buffer.push(...results);
          feed();
          if (buffer.length >= this.deps.config.batchSize) {
            yield buffer;
            buffer = [];
          }
        }
        if (running > 0) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        if (signal?.aborted || work.remaining === 0) break;
        // The pool has had its share and its tasks are done: a new one for the rest.
        await this.close();
        pool = this.startWorkers();
        givenToPool = 0;
        feed();
      }
      if (buffer.length > 0) yield buffer;
    } finally {
      closed = true;
    }
  }

  private task(files: readonly FileTaskItem[], pause?: IndexPause): FileTask {
    return {
      root: this.deps.root,
      files: [...files],
      chunkLines: this.deps.config.chunkLines,
      embeddingDimensions: this.deps.embeddingDimensions,
      ...(pause ? { pause: pause.flag } : {}),
    };
  }

  /** A crashed worker fails its whole task: retry file by file so only the culprit is marked failed. */
  private async runTask(pool: FileWorkerPool, files: FileTaskItem[], pause: IndexPause | undefined): Promise<ProcessedFile[]> {
    const task = (batch: FileTaskItem[]) => this.task(batch, pause);
    try {
      return await pool.run(task(files));
    } catch (batchError) {
      if (files.length === 1) return [failedFile(files[0] as FileTaskItem, `worker crashed: ${(batchError as Error).message}`)];
      const results: ProcessedFile[] = [];
      for (const file of files) {
        try {
          results.push(...(await pool.run(task([file]))));
        } catch (error) {
          results.push(failedFile(file, `worker crashed: ${(error as Error).message}`));
        }
      }
      return results;
    }
  }
}
