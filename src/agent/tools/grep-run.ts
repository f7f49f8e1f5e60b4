import type { Worker } from "node:worker_threads";
import type { GrepWorkerMessage, GrepWorkerRequest } from "../../../workers/grep-worker.js";
import type { FileHits, GrepSearch } from "./grep-matcher.js";

/** Files handed to a thread at a time: small enough that a search which has its answer waits little for the others. */
export const BLOCK_FILES = 128;
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
export function runSearch(
  workers: readonly Worker[],
  search: GrepSearch,
  options: { budgetMs: number; signal: AbortSignal; nextId: () => number; stop: (worker: Worker) => void },
): Promise<GrepOutcome> {
  const blocks: Block[] = [];
  for (let start = 0; start < search.files.length; start += BLOCK_FILES) {
    blocks.push({ start, end: Math.min(search.files.length, start + BLOCK_FILES), hits: [], more: false, done: false });
  }
  let next = 0;
  let answer: GrepOutcome | undefined;
  const requests = new Map<number, Lane>();

  return new Promise((resolve, reject) => {
    const lanes: Lane[] = workers.map((worker) => {
      const lane: Lane = {
        worker,
        progress: new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)),
        block: undefined,
        watched: -1,
        since: 0,
        stopped: false,
        onExit: (code) => {
          if (!lane.stopped) fail(new Error(`the grep thread ended unexpectedly (exit code ${code})`));
        },
      };
      return lane;
    });
    const watcher = setInterval(watch, WATCH_INTERVAL_MS);
    const stop = (lane: Lane) => {
      lane.stopped = true;
      options.stop(lane.worker);
    };
    const onAbort = () => {
      for (const lane of lanes) if (lane.block) stop(lane);
      settle({ hits: [], end: { kind: "cancelled" } }, true);
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    for (const lane of lanes) {
      lane.worker.on("message", onMessage);
      lane.worker.on("error", fail);
      lane.worker.on("exit", lane.onExit);
    }
    for (const lane of lanes) dispatch(lane);
    if (blocks.length === 0) settle({ hits: [], end: { kind: "done", more: false } });

    function dispatch(lane: Lane): void {
      const block = answer ? undefined : blocks[next];
      lane.block = block;
      if (!block) return;
      next++;
      const id = options.nextId();
      requests.set(id, lane);
      Atomics.store(lane.progress, 0, -1);
      [lane.watched, lane.since] = [-1, performance.now()];
      const files = search.files.slice(block.start, block.end);
      const request: GrepWorkerRequest = {
        id,
        kind: "search",
        search: { ...search, files, firstFile: block.start },
        progress: lane.progress,
      };
      lane.worker.postMessage(request);
    }

    function onMessage(message: GrepWorkerMessage): void {
      const lane = requests.get(message.id);
      const block = lane?.block;
      if (!lane || !block) return;
      if (message.kind === "hits") block.hits.push(message.hits);
      else if (message.kind === "done") {
        requests.delete(message.id);
        [block.done, block.more] = [true, message.more];
        answer ??= inOrder(blocks, search.maxResults);
        dispatch(lane);
        if (lanes.every((each) => !each.block))
          settle(answer ?? { hits: blocks.flatMap((each) => each.hits), end: { kind: "done", more: false } });
      } else if (message.kind === "error") fail(new Error(message.message));
    }

    function watch(): void {
      for (const lane of lanes) {
        if (!lane.block) continue;
        const file = Atomics.load(lane.progress, 0);
        if (file !== lane.watched) [lane.watched, lane.since] = [file, performance.now()];
        else if (file >= 0 && performance.now() - lane.since > options.budgetMs) return slow(lane, file);
      }
    }

    /** A thread stuck on one file: what was found before it stands, unless the answer was already complete. */
    function slow(lane: Lane, file: number): void {
      stop(lane);
      lane.block = undefined;
      if (answer) {
        if (lanes.every((each) => !each.block)) settle(answer);
        return;
      }
      const searched = Math.min(
        file,
        ...lanes.filter((other) => other.block).map((other) => Math.max(other.block?.start ?? 0, Atomics.load(other.progress, 0))),
        blocks[next]?.start ?? Infinity,
      );
      for (const other of lanes) if (other.block) stop(other);
      const hits = blocks.flatMap((block) => block.hits).filter((hits) => hits.file < searched);
      settle({ hits: capped(hits, search.maxResults), end: { kind: "slow", file } }, true);
    }

    function cleanUp(): void {
      clearInterval(watcher);
      options.signal.removeEventListener("abort", onAbort);
      for (const lane of lanes) {
        lane.worker.off("message", onMessage);
        lane.worker.off("error", fail);
        lane.worker.off("exit", lane.onExit);
      }
    }
    function settle(outcome: GrepOutcome, stopped = false): void {
      if (stopped) for (const lane of lanes) lane.block = undefined;
      cleanUp();
      resolve(outcome);
    }
    function fail(error: Error): void {
      for (const lane of lanes) if (lane.block && !lane.stopped) stop(lane);
      cleanUp();
      reject(error);
    }
  });
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

function capped(hits: readonly FileHits[], maxResults: number): FileHits[] {
  const kept: FileHits[] = [];
  let listed = 0;
  for (const found of hits) {
    if (listed >= maxResults) break;
    kept.push({ file: found.file, lines: found.lines.slice(0, maxResults - listed) });
    listed += Math.min(found.lines.length, maxResults - listed);
  }
  return kept;
}
