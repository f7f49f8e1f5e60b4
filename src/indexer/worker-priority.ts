import { getPriority, setPriority } from "node:os";

/**
 * Nice levels a file worker's thread runs below the thread that started it
 * (docs/DESIGN-NOTES.md, "The file workers give way to the thread that feeds
 * them"): the main thread, which hands the workers their tasks, gets a core
 * as soon as it is runnable instead of waiting behind them.
 */
export const FILE_WORKER_NICE_STEP = 2;

/** The lowest priority a thread can have. */
const LOWEST_PRIORITY = 19;

/**
 * Lowers the calling thread's priority by `step` nice levels (to 19 at
 * most) and returns the value set. Only on Linux, where a nice value is a
 * thread's own (`setpriority(PRIO_PROCESS, 0)` names the calling thread):
 * elsewhere the same call lowers the whole process, so nothing is done and
 * the result is undefined, as it is when the system refuses.
 */
export function lowerThisThreadsPriority(step = FILE_WORKER_NICE_STEP, platform: NodeJS.Platform = process.platform): number | undefined {
  if (platform !== "linux" || step <= 0) return undefined;
  try {
    const nice = Math.min(LOWEST_PRIORITY, getPriority() + step);
    setPriority(nice);
    return nice;
  } catch {
    // A system that refuses leaves the thread where it was.
    return undefined;
  }
}
