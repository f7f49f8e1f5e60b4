import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { processStartOf } from "../../src/project/process-identity.js";
import { holdIndexLock, type LockHolderProcess } from "../helpers/lock-holder.js";
import { runCli, startCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let lockPath: string;
const children: ChildProcess[] = [];
let holder: LockHolderProcess | undefined;

beforeEach(() => {
  project = createTempProject({ "src/app.ts": "export function handler() {\n  return 42;\n}\n" });
  const paths = resolveProjectPaths(project.root, project.env);
  lockPath = paths.indexLock;
  mkdirSync(dirname(lockPath), { recursive: true });
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await holder?.kill();
  holder = undefined;
  project.cleanup();
});

const writeLock = (fields: Record<string, unknown>) =>
  writeFileSync(lockPath, JSON.stringify({ startedAt: new Date().toISOString(), ...fields }));

async function sleepingPid(): Promise<number> {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  children.push(child);
  await once(child, "spawn");
  return child.pid as number;
}

/** Each lock a waiter must take over, and the reason it gives. */
const STALE_LOCKS: Array<[string, () => Promise<{ pid: number; reason: string | RegExp }>]> = [
  [
    "pid 1",
    async () => {
      writeLock({ pid: 1 });
      return { pid: 1, reason: "pid 1 is not a Sylk process" };
    },
  ],
  [
    "a live process that is not Sylk",
    async () => {
      const pid = await sleepingPid();
      writeLock({ pid });
      return { pid, reason: `pid ${pid} is not a Sylk process` };
    },
  ],
  [
    "a dead pid",
    async () => {
      const finished = spawn("true");
      await once(finished, "exit");
      writeLock({ pid: finished.pid });
      return { pid: finished.pid as number, reason: `pid ${finished.pid} is no longer running` };
    },
  ],
  [
    "a stale heartbeat",
    async () => {
      const pid = await sleepingPid();
      writeLock({ pid, processStart: processStartOf(pid), root: resolveProjectPaths(project.root, project.env).root });
      const anHourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(lockPath, anHourAgo, anHourAgo);
      return { pid, reason: new RegExp(`its holder \\(pid ${pid}\\) has not refreshed it for 36\\d\\d s`) };
    },
  ],
];

/** The one line a takeover prints. */
function said({ pid, reason }: { pid: number; reason: string | RegExp }): RegExp {
  const why = typeof reason === "string" ? reason.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : reason.source;
  return new RegExp(`^Took over the index lock of pid ${pid}: ${why}\\.$`, "m");
}

describe("a stale index lock", () => {
  it.each(STALE_LOCKS)("naming %s: sylk index and sylk ask take it over and say so", async (_, stale) => {
    const first = await stale();
    const index = await runCli(["index"], { cwd: project.root, env: project.env });
    expect(index.code, index.stderr).toBe(0);
    expect(index.stderr).toMatch(said(first));
    expect(index.stdout).toMatch(/^Done: 1 files indexed/);

    const second = await stale();
    const ask = await runCli(["ask", "--yes", "--provider", "none", "where is handler?"], { cwd: project.root, env: project.env });
    expect(ask.code, ask.stderr).toBe(0);
    expect(ask.stderr).toMatch(said(second));
  });
});

describe("a live Sylk holder", () => {
  it("is waited for, and sylk index proceeds once it ends", async () => {
    holder = await holdIndexLock(lockPath, resolveProjectPaths(project.root, project.env).root);
    expect(holder.held).toBe(true);
    const child = startCli(["index"], { cwd: project.root, env: project.env });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin?.end();
    const closed = once(child, "close");
    while (!stderr.includes("waiting for it to finish")) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stderr).toContain(`Another sylk process (pid ${holder.pid}) is indexing this project; waiting for it to finish…`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(child.exitCode).toBeNull();
    await holder.kill();
    const [code] = await closed;
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`Took over the index lock of pid ${holder.pid}: pid ${holder.pid} is no longer running.`);
    expect(stdout).toMatch(/^Done: 1 files indexed/);
  });
});
