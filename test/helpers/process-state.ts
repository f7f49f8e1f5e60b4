import { existsSync, readdirSync, readFileSync } from "node:fs";

// What the tests ask of a process or a thread, read from /proc (Linux): one reader of its stat files.

/**
 * A stat file's fields after the command name, the state first (field 3 of proc(5)), or undefined once the process
 * or thread has ended. The name is in parentheses and may hold spaces or parentheses, so the fields start after the
 * last ")".
 */
export function statFields(path: string): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * Whether a process runs. A zombie (ended, not yet reaped by a parent or an init that may never reap it in a
 * container) does not. Where there is no /proc, the answer of signal 0 is all there is.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (!existsSync("/proc/self/stat")) return true;
  const fields = statFields(`/proc/${pid}/stat`);
  return fields !== undefined && fields[0] !== "Z";
}

/** The process's parent (field 4). */
export function parentOf(pid: number): number {
  const fields = statFields(`/proc/${pid}/stat`);
  if (fields === undefined) throw new Error(`process ${pid} has ended`);
  return Number(fields[1]);
}

/** The running (not zombie) processes of a process group (field 5). */
export function processGroupMembers(group: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      const fields = statFields(`/proc/${pid}/stat`);
      return fields !== undefined && fields[0] !== "Z" && Number(fields[2]) === group;
    })
    .map(Number);
}

/** The nice value of one thread of a process (field 19), or undefined once it has ended. */
export function threadNice(pid: number | "self", tid: string): number | undefined {
  const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
  return fields === undefined ? undefined : Number(fields[16]);
}

/** The nice value of each of a process's worker threads (named WorkerThread), by thread id. */
export function workerThreadNices(pid: number | "self"): Map<string, number> {
  const nices = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let name: string;
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    const nice = name === "WorkerThread" ? threadNice(pid, tid) : undefined;
    if (nice !== undefined) nices.set(tid, nice);
  }
  return nices;
}
