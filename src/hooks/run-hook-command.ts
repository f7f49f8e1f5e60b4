import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { signalProcessGroup } from "../process-group.js";

/** What a hook's process did. */
export interface HookProcessResult {
  /** How it ended: its own exit, its timeout, the run's interruption, or it never started. */
  ending: "exit" | "timeout" | "aborted" | "not_started";
  /** Its exit code when it exited; null otherwise (a signal counts as no code). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not start. */
  error?: string;
  durationMs: number;
}

export interface HookProcessOptions {
  command: string;
  /** Written to its stdin, which is then closed: the only way the event's data reaches the hook. */
  input: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Told of the process group while it lives, so that it ends with Sylk (`CommandProcesses`). */
  processes?: { add(pid: number): void; remove(pid: number): void };
}

/** What is kept of each stream: a hook reports in a line or a small JSON object, not in megabytes. */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;
/** Between SIGTERM and SIGKILL for a group that does not stop. */
const KILL_GRACE_MS = 1_000;
/** How long the pipes may stay open after the shell exited (a background job may hold them). */
const CLOSE_GRACE_MS = 500;
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

/**
 * Runs one hook command as written, by the shell, in a process group of its
 * own; the input goes to its stdin and nowhere else (never into the command
 * line). At its timeout or when the run is interrupted the whole group gets
 * SIGTERM, then SIGKILL a second later, so a hook that hangs, or a child it
 * left behind, does not outlive it.
 */
export function runHookCommand(options: HookProcessOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  return new Promise((resolve) => {
    if (options.signal?.aborted) {
      resolve({ ending: "aborted", exitCode: null, stdout: "", stderr: "", durationMs: 0 });
      return;
    }
    const child = spawn(SHELL, ["-c", options.command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const stdout = new BoundedText();
    const stderr = new BoundedText();
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    // A hook that exits without reading its input closes the pipe under the write: that is its right.
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);
    const pid = child.pid;
    if (pid !== undefined) options.processes?.add(pid);

    let forced: "timeout" | "aborted" | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const killGroup = (signal: NodeJS.Signals) => {
      if (pid !== undefined) signalProcessGroup(pid, signal);
    };
    const finish = (result: Omit<HookProcessResult, "stdout" | "stderr" | "durationMs">) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) options.processes?.remove(pid);
      resolve({ ...result, stdout: stdout.text(), stderr: stderr.text(), durationMs: elapsed() });
    };
    const stop = (reason: "timeout" | "aborted") => {
      if (forced) return;
      forced = reason;
      killGroup("SIGTERM");
      timers.push(setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS));
      timers.push(setTimeout(() => finish({ ending: reason, exitCode: null }), KILL_GRACE_MS * 3));
    };
    const onAbort = () => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    timers.push(setTimeout(() => stop("timeout"), options.timeoutMs));
    child.on("error", (error) => finish({ ending: "not_started", exitCode: null, error: error.message }));
    child.on("exit", () => {
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, CLOSE_GRACE_MS),
      );
    });
    child.on("close", (code) => {
      if (forced) finish({ ending: forced, exitCode: null });
      else finish({ ending: "exit", exitCode: code });
    });
  });
}

/** The first `MAX_HOOK_OUTPUT_BYTES` of a stream, and whether more came. */
class BoundedText {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private cut = false;

  push(chunk: Buffer): void {
    const room = MAX_HOOK_OUTPUT_BYTES - this.size;
    if (room <= 0) {
      this.cut = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.cut ||= kept.length < chunk.length;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.cut ? `${text}\n[… cut at ${MAX_HOOK_OUTPUT_BYTES / 1024} KiB]` : text;
  }
}
