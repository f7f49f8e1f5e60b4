import type { Worker } from "node:worker_threads";
import type { GrepWorkerMessage, GrepWorkerRequest } from "../../../workers/grep-worker.js";
import { type FileHits, type GrepSearch, readOnlyIfChanged } from "./grep-matcher.js";

/** Files handed to a thread at a time (at most): small enough that a search which has its answer waits little for the others. */
export const BLOCK_FILES = 128;
/** What a file only `stat`ed (`GrepSearch.unlessChanged`) counts for in a block, against one read and matched. */
const STAT_COST = 1 / 8;
/** How often the main thread looks at which file each thread is on. */
const WATCH_INTERVAL_MS = 50;

export type GrepEnd =
  | { kind: "done"; more: boolean }
  /** Matching `file` took longer than the budget: the search stopped there. */
  | { kind: "slow"; file: number }
  | { kind: "cancelled" };

/** What a search found (also when it stopped early), and how it ended. */
export interface GrepOutcome {
  hits: FileHits[];
  end: GrepEnd;
}

interface Block {
  start: number;
  end: number;
  hits: FileHits[];
  more: boolean;
  done: boolean;
}

interface Lane {
  worker: Worker;
  progress: Int32Array;
  block: Block | undefined;
  /** The file the lane was on at the last look, and since when. */
  watched: number;
  since: number;
  /** Ended by this search (stuck, or cancelled): its exit is expected. */
  stopped: boolean;
  onExit: (code: number) => void;
}

/**
 * One search spread over threads: the files in blocks of `BLOCK_FILES`,
 * handed out in order as threads come free, and the hits put back in file
 * order. It ends once the first `maxResults` lines in order are known and
 * whether more exist (the threads finish the block they are on), when every
 * file is searched, when one file takes longer than the budget (the hits of
 * the files before it are kept), or on the signal. `stop(worker)` ends a
 * thread that must not be reused: one stuck in a pattern, or all of them
 * when the search is cancelled.
 */
export function runSearch(workers: readonly Worker[], search: GrepSearch, options: SearchOptions): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => new ThreadedSearch(workers, search, options, resolve, reject).start());
}

interface SearchOptions {
  budgetMs: number;
  signal: AbortSignal;
  nextId: () => number;
  stop: (worker: Worker) => void;
}

/** The state of one `runSearch`: its blocks, its threads' lanes, and the requests in flight. */
class ThreadedSearch {
  private readonly blocks: Block[] = [];
  private readonly lanes: Lane[];
  private readonly requests = new Map<number, Lane>();
  private next = 0;
  private answer: GrepOutcome | undefined;
  private watcher: ReturnType<typeof setInterval> | undefined;

  constructor(
    workers: readonly Worker[],
    private readonly search: GrepSearch,
    private readonly options: SearchOptions,
    private readonly resolve: (outcome: GrepOutcome) => void,
    private readonly reject: (error: Error) => void,
  ) {
    const costs = search.files.map((_, index) => (readOnlyIfChanged(search, index) ? STAT_COST : 1));
    // A short list is still spread over every thread: one block of 52 files left the other thread idle.
    const blockCost = Math.min(BLOCK_FILES, Math.ceil(costs.reduce((sum, each) => sum + each, 0) / workers.length));
    let [start, cost] = [0, 0];
    for (let index = 0; index < search.files.length; index++) {
      cost += costs[index] as number;
      if (cost < blockCost && index < search.files.length - 1) continue;
      this.blocks.push({ start, end: index + 1, hits: [], more: false, done: false });
      [start, cost] = [index + 1, 0];
    }
    this.lanes = workers.map((worker) => {
      const lane: Lane = {
        worker,
        progress: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
        block: undefined,
        watched: -1,
        since: 0,
        stopped: false,
        onExit: (code) => {
          if (!lane.stopped) this.fail(new Error(`the grep thread ended unexpectedly (exit code ${code})`));
        },
      };
      return lane;
    });
  }

  start(): void {
    this.watcher = setInterval(this.watch, WATCH_INTERVAL_MS);
    this.options.signal.addEventListener("abort", this.onAbort, { once: true });
    for (const lane of this.lanes) {
      lane.worker.on("message", this.onMessage);
      lane.worker.on("error", this.fail);
      lane.worker.on("exit", lane.onExit);
    }
    for (const lane of this.lanes) this.dispatch(lane);
    if (this.blocks.length === 0) this.settle({ hits: [], end: { kind: "done", more: false } });
  }

  /** Hands the lane the next block, or leaves it idle once the answer is known or every block is out. */
  private dispatch(lane: Lane): void {
    const block = this.answer ? undefined : this.blocks[this.next];
    lane.block = block;
    if (!block) return;
    this.next++;
    const id = this.options.nextId();
    this.requests.set(id, lane);
    Atomics.store(lane.progress, 0, -1);
    [lane.watched, lane.since] = [-1, performance.now()];
    const files = this.search.files.slice(block.start, block.end);
    const unlessChanged = this.search.unlessChanged?.slice(2 * block.start, 2 * block.end);
    const request: GrepWorkerRequest = {
      id,
      kind: "search",
      search: { ...this.search, files, ...(unlessChanged ? { unlessChanged } : {}), firstFile: block.start },
      progress: lane.progress,
    };
    lane.worker.postMessage(request);
  }

  private readonly onMessage = (message: GrepWorkerMessage): void => {
    const lane = this.requests.get(message.id);
    const block = lane?.block;
    if (!lane || !block) return;
    if (message.kind === "hits") block.hits.push(message.hits);
    else if (message.kind === "done") {
      this.requests.delete(message.id);
      [block.done, block.more] = [true, message.more];
      this.answer ??= inOrder(this.blocks, this.search.maxResults);
      this.dispatch(lane);
      if (this.lanes.every((each) => !each.block))
        this.settle(this.answer ?? { hits: this.blocks.flatMap((each) => each.hits), end: { kind: "done", more: false } });
    } else if (message.kind === "error") this.fail(new Error(message.message));
  };

  /** Looks at which file each busy thread is on: one on the same file for longer than the budget is stuck. */
  private readonly watch = (): void => {
    for (const lane of this.lanes) {
      if (!lane.block) continue;
      const file = Atomics.load(lane.progress, 0);
      if (file !== lane.watched) [lane.watched, lane.since] = [file, performance.now()];
      else if (file >= 0 && performance.now() - lane.since > this.options.budgetMs) return this.slow(lane, file);
    }
  };

  /** A thread stuck on one file: what was found before it stands, unless the answer was already complete. */
  private slow(lane: Lane, file: number): void {
    this.stop(lane);
    lane.block = undefined;
    if (this.answer) {
      if (this.lanes.every((each) => !each.block)) this.settle(this.answer);
      return;
    }
    const searched = Math.min(
      file,
      ...this.lanes.filter((other) => other.block).map((other) => Math.max(other.block?.start ?? 0, Atomics.load(other.progress, 0))),
      this.blocks[this.next]?.start ?? Infinity,
    );
    for (const other of this.lanes) if (other.block) this.stop(other);
    const hits = this.blocks.flatMap((block) => block.hits).filter((hits) => hits.file < searched);
    this.settle({ hits: capped(hits, this.search.maxResults), end: { kind: "slow", file } }, true);
  }

  private readonly onAbort = (): void => {
    for (const lane of this.lanes) if (lane.block) this.stop(lane);
    this.settle({ hits: [], end: { kind: "cancelled" } }, true);
  };

  private stop(lane: Lane): void {
    lane.stopped = true;
    this.options.stop(lane.worker);
  }

  private cleanUp(): void {
    clearInterval(this.watcher);
    this.options.signal.removeEventListener("abort", this.onAbort);
    for (const lane of this.lanes) {
      lane.worker.off("message", this.onMessage);
      lane.worker.off("error", this.fail);
      lane.worker.off("exit", lane.onExit);
    }
  }

  private settle(outcome: GrepOutcome, stopped = false): void {
    if (stopped) for (const lane of this.lanes) lane.block = undefined;
    this.cleanUp();
    this.resolve(outcome);
  }

  private readonly fail = (error: Error): void => {
    for (const lane of this.lanes) if (lane.block && !lane.stopped) this.stop(lane);
    this.cleanUp();
    this.reject(error);
  };
}

/**
 * The answer, once the blocks done in order from the first hold
 * `maxResults` lines and one more beyond them (or say they had more):
 * undefined while it may still change.
 */
function inOrder(blocks: readonly Block[], maxResults: number): GrepOutcome | undefined {
  const hits: FileHits[] = [];
  let listed = 0;
  for (const block of blocks) {
    if (!block.done) return undefined;
    for (const found of block.hits) {
      const room = maxResults - listed;
      if (room === 0) return { hits, end: { kind: "done", more: true } };
      hits.push(found.lines.length > room ? { file: found.file, lines: found.lines.slice(0, room) } : found);
      listed += Math.min(room, found.lines.length);
      if (found.lines.length > room) return { hits, end: { kind: "done", more: true } };
    }
    if (block.more) return { hits, end: { kind: "done", more: true } };
  }
  return { hits, end: { kind: "done", more: false } };
}

/** The hits, in the order given, cut after `maxResults` lines. */
export function capped(hits: readonly FileHits[], maxResults: number): FileHits[] {
  const kept: FileHits[] = [];
  let listed = 0;
  for (const found of hits) {
    if (listed >= maxResults) break;
    kept.push({ file: found.file, lines: found.lines.slice(0, maxResults - listed) });
    listed += Math.min(found.lines.length, maxResults - listed);
  }
  return kept;
}
