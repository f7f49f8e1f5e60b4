import { setFlagsFromString } from "node:v8";
import { isMainThread } from "node:worker_threads";
import { grammarWasm } from "./grammar-files.js";

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

/**
 * Grammars whose code stays on V8's baseline tier (Liftoff) in this process:
 * bash's lexer still took 358 MB to optimise with `WASM_OPTIMIZER_FLAGS`
 * (345 MB of it in one phase no option bounds), the index process's peak at
 * 250k files, while shell scripts are a small share of any repository and
 * parse about as fast on baseline code (docs/DESIGN-NOTES.md, "The bash
 * grammar on V8's baseline tier").
 */
export const BASELINE_TIER_GRAMMARS = ["bash"] as const;

/** The options under which a module compiles on the baseline tier, every function at once, with no tiering budget in its code. */
const BASELINE_TIER_COMPILE_FLAGS = ["--no-wasm-lazy-compilation", "--no-wasm-dynamic-tiering", "--no-wasm-tier-up"] as const;
/**
 * Kept for the process's life once a module is on the baseline tier: V8
 * otherwise drops every module's baseline code at a memory-reducing
 * collection (a heap snapshot's, a low-memory notification's, the last
 * resort of a heap near its limit), and a module whose code was dropped
 * compiles again lazily under the defaults, tiering up: bash's lexer then
 * took the optimising compile's 358 MB (a cold index of biome peaked at
 * 749–754 MiB against 480–481 when the index's walk ended in such a
 * collection; docs/DESIGN-NOTES.md, "The walk's committed heap given back:
 * tried").
 */
const KEEP_BASELINE_CODE_FLAG = "--no-flush-liftoff-code";
/**
 * V8 learned to drop baseline code in version 13 (Node 24); Node 22's V8
 * (12.4) neither drops it nor knows the option, and prints an error on
 * stderr for an option it does not know, where a user sees it.
 */
const FLUSHES_BASELINE_CODE = Number(process.versions.v8.split(".")[0]) >= 13;
/** V8's defaults for those options, restored once the module is compiled. */
const DEFAULT_COMPILE_FLAGS = ["--wasm-lazy-compilation", "--wasm-dynamic-tiering", "--wasm-tier-up"] as const;

let applied = false;
/**
 * The baseline-tier modules, held for the process's life: V8's native
 * module cache gives any isolate that compiles the same bytes the module
 * still alive, so the worker threads' grammars are these.
 */
const baselineTierModules: WebAssembly.Module[] = [];

/**
 * Applies `WASM_OPTIMIZER_FLAGS` to this process and compiles
 * `BASELINE_TIER_GRAMMARS` on the baseline tier. V8's options are
 * process-wide, so the main thread does this before it starts worker
 * threads or compiles a grammar itself; in a worker this does nothing (its
 * process has them, and setting options while other threads compile would
 * race with their reads). Later calls do nothing.
 */
export function boundWasmOptimizerMemory(): void {
  if (applied || !isMainThread) return;
  applied = true;
  for (const flag of WASM_OPTIMIZER_FLAGS) setFlagsFromString(flag);
  if (tieringSetByUser()) return;
  for (const language of BASELINE_TIER_GRAMMARS) baselineTierModules.push(compileOnBaselineTier(grammarWasm(language)));
  if (FLUSHES_BASELINE_CODE) setFlagsFromString(KEEP_BASELINE_CODE_FLAG);
}

/** Whether this process was started with V8 options of its own about tiering, which restoring the defaults would undo. */
function tieringSetByUser(): boolean {
  const options = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  return /--(no-)?wasm[-_](lazy[-_]compilation|dynamic[-_]tiering|tier[-_]up)\b/.test(options);
}

/** Compiles `bytes` (a file read, never a view of shared memory) on the baseline tier, then restores V8's defaults. */
function compileOnBaselineTier(bytes: Uint8Array): WebAssembly.Module {
  for (const flag of BASELINE_TIER_COMPILE_FLAGS) setFlagsFromString(flag);
  try {
    return new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  } finally {
    for (const flag of DEFAULT_COMPILE_FLAGS) setFlagsFromString(flag);
  }
}
