import { setFlagsFromString } from "node:v8";

/**
 * How far past what a full collection found live V8 lets a heap grow while
 * a large first index runs: 1.3×, the factor V8 gives a heap bounded at
 * 256 MB or less (the file workers'). Left to itself it gives the main
 * thread's heap, allowed 2 GB or more, up to 4×, and the main thread's live
 * size swings with the full-text segment it builds: at 250k files the heap
 * grew to 311 MB committed on 13–53 MB live (docs/DESIGN-NOTES.md, "A large
 * first index's heaps grow by 1.3× what they hold live").
 */
export const FIRST_INDEX_HEAP_GROWING_PERCENT = 30;

const FLAG = "heap-growing-percent";

/** Runs holding the bound now: the flag is process-wide, so the last to end puts it back. */
let holders = 0;

/**
 * Sets every isolate's heap growth to `FIRST_INDEX_HEAP_GROWING_PERCENT` of
 * its live size from the next full collection on, until the function
 * returned is called. V8 reads the flag at each full collection; it has no
 * per-isolate factor, and an isolate's maximum size, which caps the factor,
 * is fixed when it is made. A process started with the flag keeps its own.
 */
export function boundHeapGrowth(): () => void {
  if (startedWithFlag()) return () => {};
  if (holders++ === 0) setFlagsFromString(`--${FLAG}=${FIRST_INDEX_HEAP_GROWING_PERCENT}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // 0 is V8's default: the factor from the collector's speed again.
    if (--holders === 0) setFlagsFromString(`--${FLAG}=0`);
  };
}

/** Whether a run holds the bound now. */
export function heapGrowthBounded(): boolean {
  return holders > 0;
}

function startedWithFlag(): boolean {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ");
  return given.includes(FLAG) || given.includes(FLAG.replaceAll("-", "_"));
}
