import type { ChildProcess } from "node:child_process";

/**
 * Sends `signal` to a process group: a command, a hook or an MCP server is
 * started in a group of its own (`detached: true`), so that what it started
 * goes with it. A group that has ended already is no error: the caller
 * wanted it gone.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** How a command started in a process group of its own ended. */
export type GroupEnding =
  | { kind: "exit"; code: number }
  | { kind: "signal"; signal: string }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "not_started"; error: Error };

export interface GroupWatchOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL for a group that does not stop. */
  killGraceMs?: number;
  /** How long the pipes may stay open after the leader exited: a background job it started may hold them. */
  closeGraceMs?: number;
}

const KILL_GRACE_MS = 1_000;
const CLOSE_GRACE_MS = 500;

/**
 * Waits until `child`, the leader of a process group of its own, ends. At
 * the timeout or on abort (also one that came before the wait) the whole
 * group gets SIGTERM, then SIGKILL a grace later, so neither a command that
 * hangs nor a child it left behind outlives it; the wait gives up two graces
 * after that even if the pipes never close. Once the leader exits, its pipes
 * are closed a short grace later, since a background job may hold them open.
 */
export function watchProcessGroup(child: ChildProcess, options: GroupWatchOptions): Promise<GroupEnding> {
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  const closeGraceMs = options.closeGraceMs ?? CLOSE_GRACE_MS;
  return new Promise((resolve) => {
    let forced: { kind: "timeout" } | { kind: "aborted" } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (ending: GroupEnding) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(ending);
    };
    const signalGroup = (signal: NodeJS.Signals) => {
      if (child.pid !== undefined) signalProcessGroup(child.pid, signal);
    };
    const stop = (reason: { kind: "timeout" } | { kind: "aborted" }) => {
      if (forced || settled) return;
      forced = reason;
      signalGroup("SIGTERM");
      timers.push(setTimeout(() => signalGroup("SIGKILL"), killGraceMs));
      timers.push(setTimeout(() => finish(reason), killGraceMs * 3));
    };
    const onAbort = () => stop({ kind: "aborted" });
    child.on("error", (error) => finish({ kind: "not_started", error }));
    child.on("exit", () => {
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, closeGraceMs),
      );
    });
    child.on("close", (code, signal) => {
      if (forced) finish(forced);
      else if (code !== null) finish({ kind: "exit", code });
      else finish({ kind: "signal", signal: signal ?? "unknown" });
    });
    timers.push(setTimeout(() => stop({ kind: "timeout" }), options.timeoutMs));
    if (options.signal?.aborted) stop({ kind: "aborted" });
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
