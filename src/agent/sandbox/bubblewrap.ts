import { spawn, spawnSync } from "node:child_process";
import type { SandboxScope } from "./command-sandbox.js";
import type { HiddenPath } from "./read-denial.js";
import { isWithin } from "./sandbox-paths.js";

/** What a probe answers: bwrap works here, or why it does not. */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** What is mounted over the writable directories: the protected paths, then the hidden ones. */
export interface ProtectiveMounts {
  /** Existing paths (placeholders included), each bound read-only on itself. */
  readOnly: readonly string[];
  hidden: readonly HiddenPath[];
  /** An empty file, bound read-only over each hidden file. */
  emptyFile: string;
}

/**
 * The arguments that run `shell -c command` in a bubblewrap sandbox: the
 * whole file system read-only, a fresh `/tmp`, the project and the other
 * writable directories mounted writable over it (so a project under `/tmp`
 * reappears), then the protected paths read-only again (a mount point can be
 * neither written nor renamed nor removed), then the hidden paths covered by
 * empty read-only ones, and every namespace unshared (no network unless
 * asked, no view of other processes). `--die-with-parent` and
 * `--new-session` keep a killed run from leaving processes behind or
 * reaching the terminal.
 */
export function bubblewrapArguments(shell: string, command: string, scope: SandboxScope, mounts: ProtectiveMounts): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (scope.network) args.push("--share-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  args.push("--bind", scope.root, scope.root);
  for (const directory of scope.writable) args.push("--bind-try", directory, directory);
  for (const path of mounts.readOnly) args.push("--ro-bind", path, path);
  const visible = [scope.root, ...scope.writable];
  for (const { path, kind } of mounts.hidden) {
    // The command's /tmp is its own: what the host keeps there is out of sight already.
    if (isWithin(path, "/tmp") && !visible.some((directory) => isWithin(path, directory))) continue;
    if (kind === "directory") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", mounts.emptyFile, path);
  }
  args.push("--chdir", scope.root, "--setenv", "TMPDIR", "/tmp", "--", shell, "-c", command);
  return args;
}

/** The probe: `true` inside the same kind of sandbox as a command's. */
const PROBE_ARGUMENTS = [
  "--die-with-parent",
  "--unshare-all",
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--tmpfs",
  "/tmp",
  "--",
  "true",
];
const PROBE_TIMEOUT_MS = 5_000;

/** Probes started ahead of need (see `startBubblewrapProbe`), by the PATH that finds `bwrap`. */
const earlyProbes = new Map<string, { settled: Promise<ProbeResult>; result?: ProbeResult }>();

/**
 * Starts a probe without waiting for it. The interactive session starts one
 * before it loads the screen's modules: the child runs beside that loading,
 * and the sandbox opened while the first frame is drawn takes its answer
 * (`probeBubblewrap`) instead of running one of its own, synchronously, in
 * front of the first frame (≈ 185 ms of the launch on a busy machine).
 */
export function startBubblewrapProbe(env: NodeJS.ProcessEnv): Promise<ProbeResult> {
  const key = env.PATH ?? "";
  const running = earlyProbes.get(key);
  if (running) return running.settled;
  const entry: { settled: Promise<ProbeResult>; result?: ProbeResult } = {
    settled: new Promise((resolve) => {
      const settle = (result: ProbeResult) => {
        entry.result ??= result;
        resolve(entry.result);
      };
      const child = spawn("bwrap", PROBE_ARGUMENTS, { env, timeout: PROBE_TIMEOUT_MS, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      child.once("error", (error) => settle(probeFailure(error)));
      child.once("close", (status, signal) => settle(probeExit(status, signal, stderr)));
    }),
  };
  earlyProbes.set(key, entry);
  return entry.settled;
}

/**
 * Whether bubblewrap can make a sandbox on this machine: it may be missing,
 * or the kernel may refuse unprivileged user namespaces (some containers and
 * distributions do). One run of `true` inside the same kind of sandbox tells;
 * the answer of a probe started earlier is taken when it has come.
 */
export function probeBubblewrap(env: NodeJS.ProcessEnv): ProbeResult {
  const early = earlyProbes.get(env.PATH ?? "")?.result;
  if (early) return early;
  const result = spawnSync("bwrap", PROBE_ARGUMENTS, {
    env,
    encoding: "utf8",
    timeout: PROBE_TIMEOUT_MS,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return result.error ? probeFailure(result.error) : probeExit(result.status, result.signal, result.stderr);
}

function probeFailure(error: Error): ProbeResult {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") {
    return {
      ok: false,
      reason: "bubblewrap is not installed (install the bubblewrap package: apt-get install bubblewrap, dnf install bubblewrap)",
    };
  }
  return { ok: false, reason: `bubblewrap could not be started: ${error.message}` };
}

function probeExit(status: number | null, signal: NodeJS.Signals | null, stderr: string): ProbeResult {
  if (status === 0) return { ok: true };
  const detail = stderr.trim().split("\n")[0] || `exit code ${status ?? signal}`;
  return { ok: false, reason: `bubblewrap cannot create a sandbox on this machine (${detail})` };
}
