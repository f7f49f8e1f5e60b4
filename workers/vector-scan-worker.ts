/**
 * Scans the vector hot tier on its own thread, so the vector signal runs
 * beside full-text scoring instead of after it. The vectors stay where the
 * main thread keeps them, in a shared WebAssembly memory: a request carries
 * only the kernel's arguments, and the answer only the top slots.
 */
import { parentPort, workerData } from "node:worker_threads";
import { instantiateKernel, scanTopSlots, type KernelScan, type WasmMemory } from "../src/search/int8-vector-scan.js";

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

const kernel = instantiateKernel((workerData as { memory: WasmMemory }).memory);

parentPort?.on("message", (request: VectorScanRequest) => {
  const best = scanTopSlots(kernel, request.scan, request.k);
  const slots = Int32Array.from(best, (entry) => entry.slot);
  const scores = Int32Array.from(best, (entry) => entry.score);
  const response: VectorScanResponse = { id: request.id, slots, scores };
  parentPort?.postMessage(response, [slots.buffer, scores.buffer]);
});
