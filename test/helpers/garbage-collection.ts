import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** A full collection, now: for a heap figure taken in the same job. */
export function collectGarbageNow(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/**
 * A full collection, so that what nothing references any more is gone. After
 * a turn of the event loop: a WeakRef's target is kept until the job that
 * made or read it ends.
 */
export async function collectGarbage(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  collectGarbageNow();
}
