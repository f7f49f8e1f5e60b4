import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IndexLock, lockIdentity, removeJudgedLock, type LockHolder } from "../../src/project/index-lock.js";
import { processStartOf } from "../../src/project/process-identity.js";
import { holdIndexLock, type LockHolderProcess } from "../helpers/lock-holder.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let lockPath: string;
const children: ChildProcess[] = [];
const holders: LockHolderProcess[] = [];

beforeEach(() => {
  project = createTempProject();
  lockPath = join(project.sylkHome, "projects", "p", "index.lock");
  mkdirSync(dirname(lockPath), { recursive: true });
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(holders.splice(0).map((holder) => holder.kill()));
  project.cleanup();
});

const lock = (timings = { heartbeatMs: 10_000, staleAfterMs: 60_000 }) => new IndexLock(lockPath, project.root, timings);
const writeLock = (holder: Partial<LockHolder>) =>
  writeFileSync(lockPath, JSON.stringify({ startedAt: new Date().toISOString(), ...holder }));

/** A live process that is not Sylk. */
async function sleeper(): Promise<{ pid: number }> {
  const child = spawn("sleep", ["60"], { stdio: "ignore" });
  children.push(child);
  await once(child, "spawn");
  return { pid: child.pid as number };
}

async function holder(options: { heartbeatMs?: number; startAt?: number } = {}): Promise<LockHolderProcess> {
  const started = await holdIndexLock(lockPath, project.root, options);
  holders.push(started);
  return started;
}

describe("IndexLock", () => {
  it("records its holder whole: pid, start time, host, project root; and removes only its own lock", () => {
    const mine = lock();
    expect(mine.tryAcquire()).toEqual({ acquired: true });
    const recorded = JSON.parse(readFileSync(lockPath, "utf8")) as LockHolder;
    expect(recorded).toMatchObject({ pid: process.pid, root: project.root, processStart: processStartOf(process.pid) });
    expect(recorded.token).toMatch(/^[0-9a-f-]{36}$/);
    mine.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it("takes over a lock naming pid 1, which is alive but not Sylk", () => {
    writeLock({ pid: 1 });
    expect(lock().tryAcquire()).toEqual({
      acquired: true,
      tookOver: { holder: expect.objectContaining({ pid: 1 }), reason: "pid 1 is not a Sylk process" },
    });
  });

  it("takes over a lock naming a live process that is not Sylk", async () => {
    const sleeping = await sleeper();
    writeLock({ pid: sleeping.pid });
    expect(lock().tryAcquire()).toMatchObject({ acquired: true, tookOver: { reason: `pid ${sleeping.pid} is not a Sylk process` } });
  });

  it("takes over a lock whose pid is now another process than the one that took it", async () => {
    const sleeping = await sleeper();
    const start = processStartOf(sleeping.pid) as string;
    writeLock({ pid: sleeping.pid, processStart: start.replace(/:(\d+)$/, (_, ticks: string) => `:${Number(ticks) - 100}`) });
    expect(lock().tryAcquire()).toMatchObject({
      acquired: true,
      tookOver: { reason: `pid ${sleeping.pid} is now another process, not the Sylk that took the lock` },
    });
  });

  it("takes over a lock whose pid is dead", async () => {
    const finished = spawn("true");
    await once(finished, "exit");
    writeLock({ pid: finished.pid as number });
    expect(lock().tryAcquire()).toMatchObject({ acquired: true, tookOver: { reason: `pid ${finished.pid} is no longer running` } });
  });

  it("takes over a lock whose heartbeat is stale, even when its pid checks out", async () => {
    const sleeping = await sleeper();
    writeLock({ pid: sleeping.pid, processStart: processStartOf(sleeping.pid) as string, root: project.root });
    expect(lock().tryAcquire()).toMatchObject({ acquired: false, holder: { pid: sleeping.pid } });
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    utimesSync(lockPath, twoMinutesAgo, twoMinutesAgo);
    expect(lock().tryAcquire()).toMatchObject({
      acquired: true,
      tookOver: { reason: `its holder (pid ${sleeping.pid}) has not refreshed it for 120 s` },
    });
  });

  it("takes over another project's lock and one that names no holder", () => {
    writeLock({ pid: process.pid + 1, root: "/elsewhere" });
    expect(lock().tryAcquire()).toMatchObject({ acquired: true, tookOver: { reason: "it names another project (/elsewhere)" } });
    lock().release();
    writeFileSync(lockPath, "not json");
    expect(lock().tryAcquire()).toMatchObject({ acquired: true, tookOver: { reason: "the lock file does not name its holder" } });
  });

  it("waits for a live Sylk holder whose heartbeat goes on, and takes over once it stops", async () => {
    const live = await holder({ heartbeatMs: 100 });
    expect(live.held).toBe(true);
    const waiter = lock({ heartbeatMs: 100, staleAfterMs: 1_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(waiter.tryAcquire()).toMatchObject({ acquired: false, holder: { pid: live.pid } });
    // Stopped (Ctrl-Z, a debugger, a hang): alive with the same start time, but no heartbeat.
    live.child.kill("SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(waiter.tryAcquire()).toMatchObject({
      acquired: true,
      tookOver: { reason: expect.stringMatching(new RegExp(`^its holder \\(pid ${live.pid}\\) has not refreshed it for \\d+ s$`)) },
    });
    live.child.kill("SIGCONT");
  });

  it("acquire waits for the holder, says who it is once, and proceeds when it dies", async () => {
    const live = await holder();
    const waits: LockHolder[] = [];
    const acquiring = lock().acquire({ onWait: (seen) => waits.push(seen), pollMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waits).toEqual([expect.objectContaining({ pid: live.pid })]);
    await live.kill();
    await acquiring;
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("stops waiting at once when its signal aborts", async () => {
    await holder();
    const controller = new AbortController();
    const acquiring = lock().acquire({ signal: controller.signal, pollMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    controller.abort();
    await expect(acquiring).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("removes a lock judged stale only if it is still that file, never a lock taken over meanwhile", () => {
    writeLock({ pid: 1 });
    const judged = lockIdentity(lockPath) as string;
    // Another waiter took the stale lock over after this one judged it.
    writeFileSync(`${lockPath}.other`, JSON.stringify({ pid: process.pid, startedAt: "now", token: "a-new-lock" }));
    renameSync(`${lockPath}.other`, lockPath);
    expect(removeJudgedLock(lockPath, judged)).toBe(false);
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid });
    expect(existsSync(`${lockPath}.takeover`)).toBe(false);
    expect(removeJudgedLock(lockPath, lockIdentity(lockPath) as string)).toBe(true);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("leaves a stale lock to the waiter holding the takeover claim, and a claim left by a dead process does not block for ever", () => {
    writeLock({ pid: 1 });
    const judged = lockIdentity(lockPath) as string;
    writeFileSync(`${lockPath}.takeover`, "");
    expect(removeJudgedLock(lockPath, judged)).toBe(false);
    expect(existsSync(lockPath)).toBe(true);
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(`${lockPath}.takeover`, longAgo, longAgo);
    expect(removeJudgedLock(lockPath, judged)).toBe(false);
    expect(removeJudgedLock(lockPath, judged)).toBe(true);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("lets only one of several waiters take over one stale lock", async () => {
    for (let round = 0; round < 3; round++) {
      writeLock({ pid: 1 });
      const startAt = Date.now() + 1_500;
      const racers = await Promise.all(Array.from({ length: 6 }, () => holder({ startAt })));
      expect(racers.filter((racer) => racer.held)).toHaveLength(1);
      await Promise.all(holders.splice(0).map((racer) => racer.kill()));
    }
  });
});
