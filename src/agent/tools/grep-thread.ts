import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { GrepWorkerMessage, GrepWorkerRequest } from "../../../workers/grep-worker.js";
import type { IndexConfig } from "../../config/schema.js";
import { workerEntryPath } from "../../worker-entry.js";
import type { GrepSearch } from "./grep-matcher.js";
import { runSearch, type GrepOutcome } from "./grep-run.js";

export type { GrepEnd, GrepOutcome } from "./grep-run.js";

/**
 * How long matching one file may take. An ordinary pattern reads and
 * matches a 1 MiB file in milliseconds; one that backtracks for ever never
 * ends. Three seconds keep a wide margin on a loaded machine.
 */
export const FILE_BUDGET_MS = 3_000;
/**
 * Threads unused this long end; the next search starts others, and masks
 * every file again. Long enough to outlast the pauses of a conversation
 * (reading an answer, typing the next prompt); an idle thread costs a few
 * megabytes.
 */
const IDLE_MS = 5 * 60_000;
/** Searching threads: as many as there are cores, at most this many (reading files stops scaling past a few). */
const MAX_THREADS = 4;

/**
 * grep's matching threads (`workers/grep-worker`), kept warm between calls.
 * The main thread never runs the model's pattern: it hands each thread
 * blocks of files, watches which file each is on, and terminates one when a
 * file takes longer than the budget (what was found before is kept) or every
 * one when the call is cancelled, which stops even a regular expression in
 * the middle of a catastrophic backtrack. One set per process
 * (`ProjectServices.grepThread`), shared by its sessions and their
 * sub-agents; a search that arrives while another runs gets threads of its
 * own.
 */
export class GrepThread {
  private shared: Worker[] = [];
  private busy = false;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 0;

  constructor(
    readonly fileBudgetMs: number = FILE_BUDGET_MS,
    readonly threads: number = Math.max(1, Math.min(MAX_THREADS, availableParallelism())),
  ) {}

  /** Starts the threads ahead of a search, so that they load while the files are listed. */
  warmUp(): void {
    if (!this.busy) this.sharedWorkers();
  }

  /** The files the indexer would read under `root` (relative, '/'-separated), walked on a matching thread; undefined when cancelled. */
  async list(root: string, config: IndexConfig, signal: AbortSignal): Promise<string[] | undefined> {
    return this.withWorkers(async (workers, own) => {
      const worker = workers[0] as Worker;
      const id = this.nextId++;
      const request: GrepWorkerRequest = { id, kind: "list", root, config };
      const files = await new Promise<string[] | undefined>((resolve, reject) => {
        const onMessage = (message: GrepWorkerMessage) => {
          if (message.id !== id) return;
          if (message.kind === "listed") settle(() => resolve(message.files));
          else if (message.kind === "error") settle(() => reject(new Error(message.message)));
        };
        const onAbort = () => settle(() => resolve(undefined));
        const onExit = (code: number) => settle(() => reject(new Error(`the grep thread ended unexpectedly (exit code ${code})`)));
        function settle(then: () => void) {
          worker.off("message", onMessage);
          worker.off("exit", onExit);
          signal.removeEventListener("abort", onAbort);
          then();
        }
        if (signal.aborted) return onAbort();
        worker.on("message", onMessage);
        worker.on("exit", onExit);
        signal.addEventListener("abort", onAbort, { once: true });
        worker.postMessage(request);
      });
      // A walk left running would hold the thread: a cancelled one ends with it.
      return { value: files, keep: files !== undefined && !own };
    });
  }

  async search(search: GrepSearch, signal: AbortSignal): Promise<GrepOutcome> {
    if (signal.aborted) return { hits: [], end: { kind: "cancelled" } };
    return this.withWorkers(async (workers, own) => {
      const stopped = new Set<Worker>();
      const outcome = await runSearch(workers, search, {
        budgetMs: this.fileBudgetMs,
        signal,
        nextId: () => this.nextId++,
        stop: (worker) => {
          stopped.add(worker);
          void worker.terminate();
        },
      });
      if (!own && stopped.size > 0) this.shared = this.shared.filter((worker) => !stopped.has(worker));
      return { value: outcome, keep: !own };
    });
  }

  /**
   * Runs `work` on the shared threads, or on threads of its own when another
   * search holds them (ended afterwards). Threads the work does not keep end.
   */
  private async withWorkers<T>(work: (workers: Worker[], own: boolean) => Promise<{ value: T; keep: boolean }>): Promise<T> {
    clearTimeout(this.idle);
    const own = this.busy;
    const workers = own ? Array.from({ length: this.threads }, startWorker) : this.sharedWorkers();
    this.busy ||= !own;
    let kept = false;
    try {
      const { value, keep } = await work(workers, own);
      kept = keep;
      return value;
    } finally {
      if (!kept) for (const worker of workers) void worker.terminate();
      if (!own) {
        this.busy = false;
        if (kept) this.idleLater();
        else this.shared = [];
      }
    }
  }

  private sharedWorkers(): Worker[] {
    while (this.shared.length < this.threads) {
      const worker = startWorker();
      worker.on("exit", () => {
        this.shared = this.shared.filter((each) => each !== worker);
      });
      this.shared.push(worker);
    }
    return this.shared;
  }

  /** Ends the threads (the process's project services close). */
  close(): void {
    clearTimeout(this.idle);
    for (const worker of this.shared) void worker.terminate();
    this.shared = [];
  }

  private idleLater(): void {
    this.idle = setTimeout(() => this.close(), IDLE_MS);
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
