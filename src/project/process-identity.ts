import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who a process is beyond its pid, which the system reuses: on Linux the
 * boot and the process's start time (clock ticks since boot, from
 * `/proc/<pid>/stat`), which together name one process for good. Elsewhere,
 * or where `/proc` cannot be read, undefined: a lock's heartbeat decides.
 */
export function processStartOf(pid: number): string | undefined {
  const bootId = currentBootId();
  const stat = readProc(`/proc/${pid}/stat`);
  if (!bootId || !stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = fields[19];
  return ticks && /^\d+$/.test(ticks) ? `${bootId}:${ticks}` : undefined;
}

/**
 * Whether a live process's command line names Sylk (`node …/bin/sylk.js
 * index`, a global `sylk`): undefined where `/proc` cannot tell. Used for
 * locks that do not record a start time, as older versions wrote them.
 */
export function looksLikeSylk(pid: number): boolean | undefined {
  const commandLine = readProc(`/proc/${pid}/cmdline`);
  if (commandLine === undefined) return undefined;
  return commandLine.split("\0").some((argument) => /sylk/i.test(argument));
}

/** Linux's id of the machine's current boot (a new one each boot), or undefined where `/proc` cannot tell. */
export function currentBootId(): string | undefined {
  return readProc("/proc/sys/kernel/random/boot_id")?.trim() || undefined;
}

/** Whether a process with this pid exists (one we may not signal counts). */
export function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function thisHost(): string {
  return hostname();
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
