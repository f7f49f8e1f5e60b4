import { readdirSync, readFileSync } from "node:fs";

/** The nice value of one thread of a process (`/proc/<pid>/task/<tid>/stat`, field 19), or undefined once it has ended. */
export function threadNice(pid: number | "self", tid: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces; the fields after it start with the state (field 3).
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
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
