import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { FILE_WORKER_NICE_STEP } from "../../src/indexer/worker-priority.js";
import { ConsentStore } from "../../src/project/consent.js";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { threadNice, workerThreadNices } from "../helpers/process-state.js";
import { holdIndexLock, type LockHolderProcess } from "../helpers/lock-holder.js";
import { jsonLines, startCli } from "../helpers/run-cli.js";
import { createModulesProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
let holder: LockHolderProcess | undefined;
afterEach(async () => {
  await holder?.kill();
  holder = undefined;
  project?.cleanup();
  project = undefined;
});

/** Everything the process writes, read as it comes; `until` resolves once its stdout holds a line that `check` accepts. */
function watch(child: ChildProcess) {
  const seen = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk: Buffer) => (seen.stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (seen.stderr += chunk.toString()));
  const until = async (check: (event: Record<string, unknown>) => boolean): Promise<void> => {
    const deadline = Date.now() + 60_000;
    while (!jsonLines(seen.stdout.slice(0, seen.stdout.lastIndexOf("\n") + 1)).some(check)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`Not seen; stdout:\n${seen.stdout}\nstderr:\n${seen.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { seen, until };
}

describe("sylk index --for-session (the interactive session's indexing process)", () => {
  it("indexes with JSON events and leaves the consent as the session recorded it", async () => {
    project = createModulesProject(20);
    const child = startCli(["index", "--for-session"], { cwd: project.root, env: project.env });
    const { seen } = watch(child);
    const [code] = await once(child, "close");
    expect(code, seen.stderr).toBe(0);
    const events = jsonLines(seen.stdout);
    expect(events.some((event) => event.type === "progress" && event.phase === "complete")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "summary", before: "missing", indexed: 20, interrupted: false });
    expect(new ConsentStore(resolveProjectPaths(project.root, project.env)).indexConsent()).toBeUndefined();
  });

  it("runs below the normal priority, and stops, keeping what it committed, when its stdin closes (the session ended, even killed)", async () => {
    project = createModulesProject(3_000);
    const child = startCli(["index", "--for-session"], { cwd: project.root, env: project.env });
    const { seen, until } = watch(child);
    const closed = once(child, "close");
    await until((event) => event.type === "progress" && event.phase === "indexing" && Number(event.indexed) > 0);
    // A background index: its own thread and the indexing threads it started give way to the user's foreground work.
    if (process.platform === "linux") {
      expect(threadNice(child.pid as number, String(child.pid))).toBe(10);
      const workerNices = [...workerThreadNices(child.pid as number).values()];
      expect(workerNices.length).toBeGreaterThan(0);
      // File workers lower themselves a further step below the thread that feeds them, once their module loads.
      for (const nice of workerNices) expect([10, 10 + FILE_WORKER_NICE_STEP]).toContain(nice);
      expect(workerNices).toContain(10 + FILE_WORKER_NICE_STEP);
    }
    child.stdin?.end();
    const [code] = await closed;
    expect(code, seen.stderr).not.toBe(0);
    const summary = jsonLines(seen.stdout).find((event) => event.type === "summary");
    expect(summary).toMatchObject({ interrupted: true });
    expect(Number(summary?.indexed)).toBeGreaterThan(0);
    expect(Number(summary?.indexed)).toBeLessThan(3_000);
  }, 90_000);

  it("says it waits for another holder of the index lock as an event, and indexes once the lock is free", async () => {
    project = createModulesProject(5);
    const paths = resolveProjectPaths(project.root, project.env);
    holder = await holdIndexLock(paths.indexLock, paths.root);
    const child = startCli(["index", "--for-session"], { cwd: project.root, env: project.env });
    const { seen, until } = watch(child);
    const closed = once(child, "close");
    const holderPid = holder.pid;
    await until((event) => event.type === "waiting" && event.pid === holderPid);
    await holder.kill();
    const [code] = await closed;
    expect(code, seen.stderr).toBe(0);
    const events = jsonLines(seen.stdout);
    expect(events.some((event) => event.type === "notice" && String(event.text).includes(`pid ${holderPid}`))).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "summary", indexed: 5 });
  }, 60_000);
});
