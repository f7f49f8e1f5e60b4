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
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue;
    }
    // The name is in parentheses and may hold spaces; the fields after it start with the state.
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byName[name] = (byName[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  }
  return byName;
}

/** The load averages over 1, 5 and 15 minutes, as `uptime` gives them ("6.34 5.10 4.02"). */
export function loadAverages() {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}
