/**
 * Scans the vector hot tier on its own thread, so the vector signal runs
 * beside full-text scoring instead of after it. The vectors stay where the
 * main thread keeps them, in a shared WebAssembly memory: a request carries
 * only the kernel's arguments, and the answer only the top slots. The scan
 * goes block by block, and the main thread claims the remaining blocks once
 * its full-text scoring is done (`Int8VectorScan.helpScan`); this thread
 * waits for those, then ranks.
 */
import { parentPort, workerData } from "node:worker_threads";
import { selectTopSlots } from "../src/search/top-slots.js";
import { instantiateKernel, scanUnclaimedBlocks, waitForAllBlocks, type KernelScan, type WasmMemory } from "../src/search/vector-kernel.js";

export interface VectorScanRequest {
  id: number;
  scan: KernelScan;
  k: number;
}

export interface VectorScanResponse {
  id: number;
  slots: Int32Array;
  scores: Int32Array;
}

const { memory, progress } = workerData as { memory: WasmMemory; progress: Int32Array };
const kernel = instantiateKernel(memory);

parentPort?.on("message", (request: VectorScanRequest) => {
  scanUnclaimedBlocks(kernel, request.scan, progress);
  waitForAllBlocks(request.scan, progress);
  const best = selectTopSlots(kernel, request.scan, request.k);
  const slots = Int32Array.from(best, (entry) => entry.slot);
  const scores = Int32Array.from(best, (entry) => entry.score);
  const response: VectorScanResponse = { id: request.id, slots, scores };
  parentPort?.postMessage(response, [slots.buffer, scores.buffer]);
});
