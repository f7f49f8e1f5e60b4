import { setFlagsFromString } from "node:v8";
import { isMainThread } from "node:worker_threads";

/**
 * V8 options that bound what optimising a grammar's WebAssembly costs in
 * memory. A function that runs hot is recompiled by V8's optimising tier on a
 * background thread, and Node 24's pipeline for WebAssembly (Turboshaft)
 * takes memory that grows much faster than the function: the bash grammar's
 * lexer (160 KB of code) took 694 MB of compiler memory for 2 s, once per
 * process, whenever enough shell scripts had been parsed (Node 22's
 * pipeline: 31 MB). That landed on top of everything else the index process
 * held and set its peak. Without loop unrolling and peeling the same
 * function takes 358 MB and 1.2 s; parsing the repository with them off
 * cost no measurable CPU. Turning the optimising tier off altogether would
 * remove the rest but parse ≈ 20 % slower.
 */
export const WASM_OPTIMIZER_FLAGS = ["--no-wasm-loop-unrolling", "--no-wasm-loop-peeling"] as const;

let applied = false;

/**
 * Applies `WASM_OPTIMIZER_FLAGS` to this process. V8's options are
 * process-wide, so the main thread sets them before it starts worker
 * threads or compiles a grammar itself; in a worker this does nothing (its
 * process has them, and setting options while other threads compile would
 * race with their reads). Later calls do nothing.
 */
export function boundWasmOptimizerMemory(): void {
  if (applied || !isMainThread) return;
  applied = true;
  for (const flag of WASM_OPTIMIZER_FLAGS) setFlagsFromString(flag);
}
