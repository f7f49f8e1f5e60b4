import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { watchProcessGroup } from "../src/process-group.js";
import { isRunning } from "./helpers/process-state.js";

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const inGroup = (script: string) => spawn("/bin/sh", ["-c", script], { stdio: ["ignore", "pipe", "pipe"], detached: true });

async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 100 && isRunning(pid); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  return !isRunning(pid);
}

describe("a watched process group", () => {
  it("ends with its exit code, or the signal that ended it", async () => {
    expect(await watchProcessGroup(inGroup("exit 3"), { timeoutMs: 30_000 })).toEqual({ kind: "exit", code: 3 });
    expect(await watchProcessGroup(inGroup("kill -9 $$"), { timeoutMs: 30_000 })).toEqual({ kind: "signal", signal: "SIGKILL" });
  });

  it("at its timeout takes the whole group down, a child left running in the background included", async () => {
    const directory = mkdtempSync(join(tmpdir(), "sylk-group-"));
    made.push(directory);
    const child = inGroup(`sleep 60 & echo $! > '${directory}/background'; trap '' TERM; sleep 60`);
    const ending = await watchProcessGroup(child, { timeoutMs: 300, killGraceMs: 100 });
    expect(ending).toEqual({ kind: "timeout" });
    expect(await gone(Number(readFileSync(join(directory, "background"), "utf8")))).toBe(true);
    expect(await gone(child.pid as number)).toBe(true);
  });

  it("is stopped by an abort, also one that came before the wait", async () => {
    const controller = new AbortController();
    const waiting = watchProcessGroup(inGroup("sleep 60"), { timeoutMs: 60_000, signal: controller.signal, killGraceMs: 100 });
    controller.abort();
    expect(await waiting).toEqual({ kind: "aborted" });
    const aborted = AbortSignal.abort();
    expect(await watchProcessGroup(inGroup("sleep 60"), { timeoutMs: 60_000, signal: aborted, killGraceMs: 100 })).toEqual({
      kind: "aborted",
    });
  });

  it("says when the command could not be started", async () => {
    const child = spawn("/nonexistent/program", [], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    const ending = await watchProcessGroup(child, { timeoutMs: 30_000 });
    expect(ending.kind).toBe("not_started");
  });
});
