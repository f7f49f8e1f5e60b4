import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const SYLK_BIN = fileURLToPath(new URL("../../bin/sylk.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed at `timeoutMs`: the command hung. */
  timedOut?: boolean;
}

/**
 * Runs the built `sylk` as a subprocess (run `npm run build` first; `npm test` does).
 * `timeoutMs`: kill it then (SIGKILL, since a hung read ignores SIGTERM), so that a hang
 * fails the test instead of holding the suite.
 */
export function runCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args, options);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, options.timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(timedOut ? { timedOut } : {}) });
    });
    child.stdin?.end(options.input ?? "");
  });
}

export function startCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ChildProcess {
  return spawn(process.execPath, [SYLK_BIN, ...args], {
    cwd: options.cwd,
    env: { ...options.env, CI: "true", NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
