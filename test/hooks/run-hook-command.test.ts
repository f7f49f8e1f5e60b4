import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runHookCommand } from "../../src/hooks/run-hook-command.js";
import { isRunning } from "../helpers/process-state.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sylk-hook-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, input: string, timeoutMs = 10_000) =>
  runHookCommand({ command, input, cwd: dir, env: { ...process.env, SYLK_PROJECT_DIR: dir }, timeoutMs });

describe("a hook's process", () => {
  it("gets the event on stdin only: what a tool's input holds is data, never part of a command line", async () => {
    const input = JSON.stringify({ tool_input: { command: `$(touch '${join(dir, "pwned")}')` } });
    const result = await run('cat; printf "\\n%s" "$SYLK_PROJECT_DIR"', input);
    expect(result).toMatchObject({ ending: "exit", exitCode: 0 });
    expect(result.stdout).toBe(`${input}\n${dir}`);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
  });

  it("that exits without reading its input is fine", async () => {
    const result = await run("exit 0", "x".repeat(1_000_000));
    expect(result).toMatchObject({ ending: "exit", exitCode: 0 });
  });

  it("that hangs is ended at its timeout, its whole process group with it", async () => {
    const started = performance.now();
    const result = await run(`sleep 300 & echo $! > '${join(dir, "child")}'; sleep 300`, "", 300);
    expect(result.ending).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(isRunning(Number(readFileSync(join(dir, "child"), "utf8")))).toBe(false);
  });

  it("keeps at most 64 KiB of each stream", async () => {
    const result = await run("head -c 200000 /dev/zero | tr '\\0' a", "");
    expect(result.stdout.length).toBeLessThan(70_000);
    expect(result.stdout).toMatch(/cut at 64 KiB\]$/);
  });
});
