import { Worker } from "node:worker_threads";
import { workerEntryPath } from "../worker-entry.js";
import type { VectorLoadRequest, VectorLoadResponse } from "../../workers/vector-load-worker.js";
import type { Int8VectorScanState } from "./int8-vector-scan.js";

/**
 * Loads every chunk vector of the database at `databasePath` into a scanner
 * on a thread of its own (workers/vector-load-worker.ts), and resolves to
 * the scanner's state and the chunk id of each slot. Rejects when the
 * storage cannot be read that way; the thread ends either way.
 */
export async function loadVectorsOnThread(
  databasePath: string,
  dimensions: number,
): Promise<{ state: Int8VectorScanState; ids: Int32Array }> {
  const workerData: VectorLoadRequest = { databasePath, dimensions };
  const worker = new Worker(workerEntryPath("vector-load-worker.js"), { workerData });
  // Never keeps the process alive: a session that ends while it loads does not wait for it.
  worker.unref();
  try {
    const response = await new Promise<VectorLoadResponse>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the vector load thread exited (code ${code}) before answering`)));
    });
    if ("error" in response) throw new Error(`Loading the vectors on a thread failed: ${response.error}`);
    return response;
  } finally {
    await worker.terminate();
  }
}
