import { createRequire } from "node:module";

/**
 * React's pending work, counted where React schedules it: every task of the
 * `scheduler` package (a render, the effects after a commit, where a newly
 * shown component subscribes to keys) from when it is scheduled until it ran
 * to its end or was cancelled. Installed before React's reconciler is built
 * (it reads the scheduler's functions once), by vitest's setup file.
 */
interface SchedulerModule {
  unstable_scheduleCallback: (priority: number, callback: Continuation, options?: unknown) => object;
  unstable_cancelCallback: (task: object) => void;
}
type Continuation = (didTimeout: boolean) => Continuation | null | undefined;

const pending = new Set<object>();
let installed = false;

export function countReactWork(): void {
  if (installed) return;
  installed = true;
  const scheduler = createRequire(import.meta.url)("scheduler") as SchedulerModule;
  const schedule = scheduler.unstable_scheduleCallback;
  const cancel = scheduler.unstable_cancelCallback;
  scheduler.unstable_scheduleCallback = (priority, callback, options) => {
    const ref: { task?: object } = {};
    const tracked =
      (step: Continuation): Continuation =>
      (didTimeout) => {
        let next: ReturnType<Continuation>;
        try {
          next = step(didTimeout);
        } catch (error) {
          if (ref.task) pending.delete(ref.task);
          throw error;
        }
        if (typeof next === "function") return tracked(next);
        if (ref.task) pending.delete(ref.task);
        return next;
      };
    ref.task = schedule(priority, tracked(callback), options);
    pending.add(ref.task);
    return ref.task;
  };
  scheduler.unstable_cancelCallback = (task) => {
    pending.delete(task);
    cancel(task);
  };
}

/**
 * Resolves once React has nothing left to do: no render and no effect
 * pending. Turns of the event loop, not milliseconds: what was written to
 * stdin is parsed (Ink defers a lone Esc by one turn) and every effect it
 * caused has run, however busy the machine is.
 */
export async function reactSettled(): Promise<void> {
  do await new Promise((resolve) => setImmediate(resolve));
  while (pending.size > 0);
}
