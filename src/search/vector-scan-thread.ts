import { Worker } from "node:worker_threads";
import { workerEntryPath } from "../worker-entry.js";
import type { VectorScanRequest, VectorScanResponse } from "../../workers/vector-scan-worker.js";
import type { SlotScore } from "./top-slots.js";
import type { KernelScan, WasmMemory } from "./vector-kernel.js";

/**
 * A thread that scans an `Int8VectorScan`'s shared memory, so that a hybrid
 * search scores full text on the main thread while the vectors are scanned
 * (each ≈ 1–4 ms on a large repository). One scan at a time: the caller
 * must not change the scanner's memory until the scan has answered.
 */
export class VectorScanThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (slots: SlotScore[]) => void; reject: (error: Error) => void }>();
  private failure: Error | undefined;

  /** `progress`: the scanner's shared block counters (`Int8VectorScan.progress`). */
  constructor(memory: WasmMemory, progress: Int32Array) {
    this.worker = new Worker(workerEntryPath("vector-scan-worker.js"), { workerData: { memory, progress } });
    // Never keeps the process alive: the thread waits for requests forever.
    this.worker.unref();
    this.worker.on("message", (response: VectorScanResponse) => {
      const request = this.pending.get(response.id);
      this.pending.delete(response.id);
      request?.resolve(Array.from(response.slots, (slot, index) => ({ slot, score: response.scores[index] as number })));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const request of this.pending.values()) request.reject(error);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the vector scan thread exited (code ${code})`)));
  }

  /** False once the thread has failed or exited; callers then scan on their own thread. */
  get isUsable(): boolean {
    return this.failure === undefined;
  }

  /** The k best slots of a prepared scan by int score, best first, and those that tie the k-th (see `topSlots`). */
  scan(scan: KernelScan, k: number): Promise<SlotScore[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const request: VectorScanRequest = { id, scan, k };
      this.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error("the vector scan thread was closed");
    await this.worker.terminate();
  }
}
