import { getHeapStatistics, setFlagsFromString } from "node:v8";
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
  collectGarbage();
}

/** How far a full walk's used heap may grow past what the last full collection left before the walk collects it. */
export const WALK_HEAP_SLACK_BYTES = 32 << 20;

/** Changed directories between two looks at the heap: a look costs a microsecond or so, a directory tens. */
export const DIRECTORIES_PER_LOOK = 256;

/** The heap as `WalkHeapBound` sees it. */
export interface CollectableHeap {
  /** Bytes of the heap in use, live or not yet collected. */
  used(): number;
  /** A full collection. */
  collect(): void;
}

const THIS_THREAD: CollectableHeap = { used: () => getHeapStatistics().used_heap_size, collect: collectGarbage };

/**
 * Collects a full walk's dropped garbage as the walk goes. What the walk
 * keeps is small, but what it drops outlives a young collection or two (a
 * batch of directories' states, the work file's rows) and V8 runs no full
 * collection before the old generation reaches a limit sized for the main
 * thread's 2 GB or more, so the walk's heap grew with the tree: 225.7 MB
 * committed, 14.9 MB of it live, at the end of a 497k-file walk
 * (docs/DESIGN-NOTES.md, "A full walk taken as it goes": *The walk's garbage
 * collected as it goes*).
 */
export class WalkHeapBound {
  private directories = 0;
  private baseline: number;
  /** Full collections it ran. */
  collections = 0;

  constructor(
    private readonly heap: CollectableHeap = THIS_THREAD,
    private readonly slackBytes = WALK_HEAP_SLACK_BYTES,
  ) {
    this.baseline = heap.used();
  }

  /** A changed directory was handed over and dropped: every `DIRECTORIES_PER_LOOK`, collects if the heap grew too far. */
  noteDirectory(): void {
    if (++this.directories % DIRECTORIES_PER_LOOK !== 0) return;
    if (this.heap.used() - this.baseline < this.slackBytes) return;
    this.heap.collect();
    this.collections++;
    this.baseline = this.heap.used();
  }
}

function collectGarbage(): void {
  // `gc` exists only in a context made after the option is set; the option does nothing else.
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
