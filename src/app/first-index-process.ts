/**
 * The one place that decides how a process that runs a large first index
 * is started: glibc's malloc settings, which glibc reads only when a
 * process starts (docs/DESIGN-NOTES.md, "A large first index in a process
 * set up for it"). The session's `sylk index --for-session`
 * (`runIndexProcess`) is started with them; a `sylk index` typed for a
 * first index starts itself once again with them (`restartForFirstIndex`).
 */

/**
 * A pass with more files to index than this runs in a `sylk index` process
 * of its own (see `runIndexProcess`); smaller ones, and the watcher's
 * refreshes, run in the long-lived process, where they cost less than
 * starting a process (≈ 0.3 s of CPU) and leave little behind. A `sylk
 * index` typed for a first index of more files starts itself again with
 * the settings below. The indexer's `LARGE_PASS_ABOVE_FILES` is the same
 * number (not imported: this module is loaded at every start-up).
 */
export const SEPARATE_INDEX_PROCESS_ABOVE_FILES = 1_000;

const MIB = 1024 * 1024;

/**
 * glibc's malloc, for a run that allocates and frees for minutes on every
 * thread: two arenas (the main one and one the threads share) rather than
 * one a thread, each keeping what its thread freed; and the thresholds
 * fixed, where glibc raises them each time a large mapped block is freed
 * and then keeps what it would have given back. Fixed at 8 and 16 MiB, not
 * glibc's 128 KiB: the blocks a run frees and takes again all the time (a
 * worker's serialized answers, V8's compile zones, a large file's read)
 * are reused in their arena instead of mapped afresh, each new page a
 * fault; what the two arenas keep free stays bounded, about 32 MiB
 * whatever the tree's size (docs/DESIGN-NOTES.md, "A large first index in
 * a process set up for it").
 */
export const FIRST_INDEX_MALLOC_TUNABLES: Readonly<Record<string, number>> = {
  "glibc.malloc.arena_max": 2,
  "glibc.malloc.trim_threshold": 16 * MIB,
  "glibc.malloc.mmap_threshold": 8 * MIB,
};

/** Set in a process started with these settings: it never starts itself again. */
export const FIRST_INDEX_PROCESS_MARK = "SYLK_FIRST_INDEX_PROCESS";

/**
 * How to start a process for a large first index: its environment. No Node
 * or V8 flag was measured worth giving it (`--v8-pool-size=2` did not lower
 * the peak: docs/BENCHMARKS.md, "A large first index in a process set up
 * for it").
 */
export interface FirstIndexProcessStart {
  env: NodeJS.ProcessEnv;
}

/** `env` with the malloc settings added (a tunable the user set stays as set) and the mark. */
export function firstIndexProcessStart(env: NodeJS.ProcessEnv): FirstIndexProcessStart {
  return {
    env: { ...env, GLIBC_TUNABLES: withTunables(env.GLIBC_TUNABLES), [FIRST_INDEX_PROCESS_MARK]: "1" },
  };
}

/** Whether this process was started with the settings (or by a process that was). */
export function startedForFirstIndex(env: NodeJS.ProcessEnv): boolean {
  return env[FIRST_INDEX_PROCESS_MARK] === "1";
}

/** `GLIBC_TUNABLES`' syntax: `name=value` pairs joined by colons. */
function withTunables(given: string | undefined): string {
  const pairs = (given ?? "").split(":").filter((pair) => pair.includes("="));
  const set = new Set(pairs.map((pair) => pair.slice(0, pair.indexOf("="))));
  for (const [name, value] of Object.entries(FIRST_INDEX_MALLOC_TUNABLES)) {
    if (!set.has(name)) pairs.push(`${name}=${value}`);
  }
  return pairs.join(":");
}

/** What starting itself again needs of this process and platform. */
export interface RestartAbility {
  /** `process.execve` (Node 22.15 and newer; not on Windows). */
  execve?: (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;
  /** glibc's version at run time, when this process runs on glibc: the malloc settings mean nothing elsewhere. */
  glibc?: string;
}

export function restartAbility(): RestartAbility {
  const execve = (process as { execve?: RestartAbility["execve"] }).execve;
  return { ...(typeof execve === "function" ? { execve: execve.bind(process) } : {}), ...glibcVersion() };
}

function glibcVersion(): { glibc?: string } {
  if (process.platform !== "linux") return {};
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  const glibc = report.header?.glibcVersionRuntime;
  return glibc ? { glibc } : {};
}

/**
 * Replaces this process with `node <script> <args>` under the
 * settings, keeping its id, terminal, signals and exit code; returns (doing
 * nothing) where that cannot be done or would change nothing, or where this
 * process already runs with them. Call it before anything opens a thread,
 * a file to write or the index lock.
 */
export function restartForFirstIndex(
  env: NodeJS.ProcessEnv,
  script: string,
  args: readonly string[],
  ability: RestartAbility = restartAbility(),
): void {
  if (!restartsForFirstIndex(env, ability) || !ability.execve) return;
  const start = firstIndexProcessStart(env);
  ability.execve(process.execPath, [process.execPath, ...process.execArgv, script, ...args], start.env);
}

/** Whether `restartForFirstIndex` would replace this process. */
export function restartsForFirstIndex(env: NodeJS.ProcessEnv, ability: RestartAbility): boolean {
  return !startedForFirstIndex(env) && ability.execve !== undefined && ability.glibc !== undefined;
}
