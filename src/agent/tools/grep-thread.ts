import { Worker } from "node:worker_threads";
import type { GrepWorkerMessage, GrepWorkerRequest } from "../../../workers/grep-worker.js";
import { workerEntryPath } from "../../worker-entry.js";
import type { FileHits, GrepSearch } from "./grep-matcher.js";

/**
 * How long matching one file may take. An ordinary pattern reads and
 * matches a 1 MiB file in milliseconds; one that backtracks for ever never
 * ends. Three seconds keep a wide margin on a loaded machine.
 */
const FILE_BUDGET_MS = 3_000;
/** How often the main thread looks at which file the search is on. */
const WATCH_INTERVAL_MS = 50;
/**
 * A thread unused this long ends; the next search starts another, and masks
 * every file again. Long enough to outlast the pauses of a conversation
 * (reading an answer, typing the next prompt); an idle thread costs a few
 * megabytes.
 */
const IDLE_MS = 5 * 60_000;

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

/**
 * grep's matching thread (`workers/grep-worker`), kept warm between calls.
 * The main thread never runs the model's pattern: it watches the thread's
 * progress and terminates it when one file takes longer than the budget
 * (what was found before is kept) or the call is cancelled, which stops even
 * a regular expression in the middle of a catastrophic backtrack. One per
 * process (`ProjectServices.grepThread`), shared by its sessions and their
 * sub-agents; a search that arrives while another runs gets a thread of its
 * own.
 */
export class GrepThread {
  private shared: Worker | undefined;
  private busy = false;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 0;

  constructor(readonly fileBudgetMs: number = FILE_BUDGET_MS) {}

  /** Starts the thread ahead of a search, so that it loads while the files are listed. */
  warmUp(): void {
    if (!this.busy) this.sharedWorker();
  }

  async search(search: GrepSearch, signal: AbortSignal): Promise<GrepOutcome> {
    if (signal.aborted) return { hits: [], end: { kind: "cancelled" } };
    clearTimeout(this.idle);
    const own = this.busy;
    const worker = own ? startWorker() : this.sharedWorker();
    this.busy ||= !own;
    let outcome: GrepOutcome | undefined;
    try {
      outcome = await this.watch(worker, search, signal);
      return outcome;
    } finally {
      const keep = !own && outcome?.end.kind === "done";
      if (!keep) void worker.terminate();
      if (!own) {
        this.busy = false;
        if (keep) this.idleLater();
        else if (this.shared === worker) this.shared = undefined;
      }
    }
  }

  private watch(worker: Worker, search: GrepSearch, signal: AbortSignal): Promise<GrepOutcome> {
    const id = this.nextId++;
    const progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    Atomics.store(progress, 0, -1);
    const hits: FileHits[] = [];
    return new Promise((resolve, reject) => {
      let watched = -1;
      let since = performance.now();
      const watcher = setInterval(() => {
        const file = Atomics.load(progress, 0);
        if (file !== watched) {
          watched = file;
          since = performance.now();
        } else if (file >= 0 && performance.now() - since > this.fileBudgetMs) {
          settle({ hits, end: { kind: "slow", file } });
        }
      }, WATCH_INTERVAL_MS);
      const onAbort = () => settle({ hits, end: { kind: "cancelled" } });
      const onMessage = (message: GrepWorkerMessage) => {
        if (message.id !== id) return;
        if (message.kind === "hits") hits.push(message.hits);
        else if (message.kind === "done") settle({ hits, end: { kind: "done", more: message.more } });
        else fail(new Error(message.message));
      };
      const onExit = (code: number) => fail(new Error(`the grep thread ended unexpectedly (exit code ${code})`));
      const cleanUp = () => {
        clearInterval(watcher);
        signal.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", fail);
        worker.off("exit", onExit);
      };
      function settle(outcome: GrepOutcome) {
        cleanUp();
        resolve(outcome);
      }
      function fail(error: Error) {
        cleanUp();
        reject(error);
      }
      signal.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage);
      worker.on("error", fail);
      worker.on("exit", onExit);
      const request: GrepWorkerRequest = { id, search, progress };
      worker.postMessage(request);
    });
  }

  private sharedWorker(): Worker {
    if (!this.shared) {
      const worker = startWorker();
      worker.on("exit", () => {
        if (this.shared === worker) this.shared = undefined;
      });
      this.shared = worker;
    }
    return this.shared;
  }

  /** Ends the thread (the process's project services close). */
  close(): void {
    clearTimeout(this.idle);
    void this.shared?.terminate();
    this.shared = undefined;
  }

  private idleLater(): void {
    this.idle = setTimeout(() => {
      void this.shared?.terminate();
      this.shared = undefined;
    }, IDLE_MS);
    this.idle.unref();
  }
}

function startWorker(): Worker {
  const worker = new Worker(workerEntryPath("grep-worker.js"));
  // Never keeps the process alive: while a search runs, its watcher does.
  worker.unref();
  // A thread that fails between searches is replaced by the next search; its error is not the process's.
  worker.on("error", () => undefined);
  return worker;
}
