import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full collection of this thread's heap, once a large first index has let
 * go of its walk. V8 lets a heap grow to a few times what its last full
 * collection found live before it collects again; the last one, at the
 * walk's end, found the walk's per-file results live (106 MB at 248k
 * files), which the run drops before its first file, so the heap then grew
 * to 510 MB committed before V8 found 28 MB live: the index process's peak
 * at 250k files (docs/BENCHMARKS.md, "What sets the peak at 250k now").
 * Collected here, V8 sizes the heap on what the run holds. It costs one full
 * collection (178 MB used, 20 MB of it live, at 248k files).
 */
export function collectTheDroppedWalk(): void {
  // `gc` exists only in a context made after the option is set; the option does nothing else.
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
