import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { type GroupEnding, watchProcessGroup } from "../process-group.js";

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
const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

/**
 * Runs one hook command as written, by the shell, in a process group of its
 * own; the input goes to its stdin and nowhere else (never into the command
 * line). At its timeout or when the run is interrupted the whole group gets
 * SIGTERM, then SIGKILL a second later, so a hook that hangs, or a child it
 * left behind, does not outlive it.
 */
export async function runHookCommand(options: HookProcessOptions): Promise<HookProcessResult> {
  if (options.signal?.aborted) return { ending: "aborted", exitCode: null, stdout: "", stderr: "", durationMs: 0 };
  const started = performance.now();
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
  const ended = await watchProcessGroup(child, { timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  if (pid !== undefined) options.processes?.remove(pid);
  return { ...hookEnding(ended), stdout: stdout.text(), stderr: stderr.text(), durationMs: performance.now() - started };
}

/** A hook's ending in its own terms: killed by a signal it was not sent is an exit without a code. */
function hookEnding(ended: GroupEnding): Omit<HookProcessResult, "stdout" | "stderr" | "durationMs"> {
  switch (ended.kind) {
    case "exit":
      return { ending: "exit", exitCode: ended.code };
    case "signal":
      return { ending: "exit", exitCode: null };
    case "timeout":
    case "aborted":
      return { ending: ended.kind, exitCode: null };
    case "not_started":
      return { ending: "not_started", exitCode: null, error: ended.error.message };
  }
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
