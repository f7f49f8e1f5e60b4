// What the benchmarks read from Linux's /proc about a process and the machine.
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks a second in /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) of a process's live threads, summed by thread
 * name (`/proc/<pid>/task/<tid>/stat`; "self" for this process): V8 names its
 * platform's helper threads V8Worker. A thread that ends between the listing
 * and its read is left out.
 */
export function threadCpuByName(pid = "self") {
  const byName = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = threadStat(pid, tid);
    if (stat) byName[stat.name] = (byName[stat.name] ?? 0) + (Number(stat.fields[11]) + Number(stat.fields[12])) / TICKS_PER_SECOND;
  }
  return byName;
}

/**
 * A thread's `/proc/<pid>/task/<tid>/stat`: its name, and the fields after
 * the name, from the state on (`fields[0]` is field 3 of proc(5)); undefined
 * once the thread has ended.
 */
export function threadStat(pid, tid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces.
  return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), fields: stat.slice(stat.lastIndexOf(")") + 2).split(" ") };
}

/** The first child of a process (GNU time's one child, the command it runs), or undefined before it starts or after it ends. */
export function firstChildOf(pid) {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    return children ? Number(children.split(" ")[0]) : undefined;
  } catch {
    return undefined;
  }
}

/** A number field of `/proc/<pid>/status` (`VmRSS` in kB, …), or undefined when the process or the field is gone. */
export function statusField(pid, field) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((text) => text.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The load averages over 1, 5 and 15 minutes, as `uptime` gives them ("6.34 5.10 4.02"). */
export function loadAverages() {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
