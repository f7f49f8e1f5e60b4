import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { ProjectWatcher } from "../../src/indexer/project-watcher.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let watcher: ProjectWatcher | undefined;
let batches: string[][];

beforeEach(() => {
  project = createTempProject({
    "src/a.ts": "export const a = 1;\n",
    "src/b.ts": "export const b = 2;\n",
    "lib/old/c.ts": "export const c = 3;\n",
    ".gitignore": "generated/\n*.log\n",
    ".git/info/exclude": "private/\n",
    "private/p.ts": "export const p = 1;\n",
    "generated/out.ts": "export const generated = true;\n",
    "node_modules/pkg/index.js": "module.exports = 1;\n",
  });
  batches = [];
});

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  project.cleanup();
});

async function startWatcher(debounceMs = 100): Promise<void> {
  watcher = new ProjectWatcher({
    root: project.root,
    config: defaultConfig().index,
    debounceMs,
    onChange: (paths) => batches.push(paths),
  });
  await watcher.start();
}

/**
 * Waits until what was reported satisfies `check`: the kernel's events come
 * when they come, so the test waits for a condition, never a fixed time.
 */
async function waitUntilReported(check: (paths: string[]) => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check(reported())) {
    if (Date.now() > deadline) throw new Error(`timed out; reported so far: ${JSON.stringify(batches)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const reported = () => [...new Set(batches.flat())].sort();

/**
 * Changes a file after everything else and waits for it: the events of what
 * was done before it have been through the watcher by then, so whatever it
 * was going to report is in.
 */
async function settleWith(path = "src/sentinel.ts"): Promise<void> {
  project.write(path, `${Date.now()}\n`);
  await waitUntilReported((paths) => paths.includes(path));
}

describe("ProjectWatcher", () => {
  // How changes form batches is the debounce's, tested on a fake clock in change-batcher.test.ts.
  it("reports added, changed and deleted files as relative paths", async () => {
    await startWatcher();
    project.write("src/a.ts", "export const a = 10;\n");
    project.write("src/new/d.ts", "export const d = 4;\n");
    project.remove("src/b.ts");
    await waitUntilReported((paths) => paths.length >= 3);
    await settleWith();
    expect(reported()).toEqual(["src/a.ts", "src/b.ts", "src/new/d.ts", "src/sentinel.ts"]);
    expect(batches.every((batch) => batch.every((path, index) => index === 0 || (batch[index - 1] as string) < path))).toBe(true);
  });

  it("ignores what the indexer ignores: excluded directories, .gitignore'd files and directories", async () => {
    await startWatcher();
    project.write("node_modules/pkg/index.js", "module.exports = 2;\n");
    project.write("generated/out.ts", "export const generated = false;\n");
    project.write("debug.log", "noise\n");
    project.write("package-lock.json", "{}\n");
    project.write("src/kept.ts", "export const kept = true;\n");
    await settleWith();
    expect(reported()).toEqual(["src/kept.ts", "src/sentinel.ts"]);
    const watched = (await watcher?.watchedDirectories()) ?? [];
    expect(watched).toContain("src");
    expect(watched.filter((path) => path.startsWith("node_modules") || path.startsWith("generated"))).toEqual([]);
  });

  it("reports every file of a deleted directory", async () => {
    await startWatcher();
    rmSync(join(project.root, "lib"), { recursive: true, force: true });
    await waitUntilReported((paths) => paths.length > 0);
    await settleWith();
    expect(reported()).toEqual(["lib/old/c.ts", "src/sentinel.ts"]);
  });

  it("watches a directory that appears after it started, and stops reporting after close()", async () => {
    await startWatcher();
    mkdirSync(join(project.root, "pkg/inner"), { recursive: true });
    for (const deadline = Date.now() + 20_000; !(await watcher?.watchedDirectories())?.includes("pkg/inner"); ) {
      if (Date.now() > deadline) throw new Error("pkg/inner was never watched");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    writeFileSync(join(project.root, "pkg/inner/e.ts"), "export const e = 5;\n");
    await waitUntilReported((paths) => paths.includes("pkg/inner/e.ts"));

    await watcher?.close();
    const before = batches.length;
    // A second watcher sees the change after close(): the first, closed, must not have.
    const closed = watcher;
    await startWatcher();
    project.write("src/after-close.ts", "x\n");
    await waitUntilReported((paths) => paths.includes("src/after-close.ts"));
    expect(batches.slice(before)).toEqual([["src/after-close.ts"]]);
    expect(await closed?.watchedDirectories()).toEqual([]);
  });

  it("reports every file of a directory moved out of the project, and of one moved in", async () => {
    const outside = mkdtempSync(join(tmpdir(), "sylk-watcher-outside-"));
    try {
      mkdirSync(join(outside, "incoming/deep"), { recursive: true });
      writeFileSync(join(outside, "incoming/deep/f.ts"), "export const f = 6;\n");
      await startWatcher();
      // A move reports only the directory's name to its parent's watch: what it held must come from what was seen in it.
      renameSync(join(project.root, "lib"), join(outside, "lib"));
      renameSync(join(outside, "incoming"), join(project.root, "incoming"));
      await waitUntilReported((paths) => paths.includes("lib/old/c.ts") && paths.includes("incoming/deep/f.ts"));
      await settleWith();
      expect(reported()).toEqual(["incoming/deep/f.ts", "lib/old/c.ts", "src/sentinel.ts"]);
      expect(await watcher?.watchedDirectories()).toEqual(expect.arrayContaining(["incoming", "incoming/deep"]));
      expect((await watcher?.watchedDirectories())?.filter((path) => path.startsWith("lib"))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("watches a directory an ignore file stops ignoring, and reports its files", async () => {
    await startWatcher();
    expect(await watcher?.watchedDirectories()).not.toContain("generated");
    project.write(".gitignore", "*.log\n");
    await waitUntilReported((paths) => paths.includes("generated/out.ts"));
    expect(await watcher?.watchedDirectories()).toContain("generated");
    project.write("generated/out.ts", "export const generated = 2;\n");
    batches = [];
    await waitUntilReported((paths) => paths.includes("generated/out.ts"));
  });

  it("reports a change to the repository's .git/info/exclude, and watches a directory it stops excluding", async () => {
    await startWatcher();
    expect(await watcher?.watchedDirectories()).not.toContain("private");
    project.write(".git/info/exclude", "");
    await waitUntilReported((paths) => paths.includes(".git/info/exclude") && paths.includes("private/p.ts"));
    expect(await watcher?.watchedDirectories()).toContain("private");
  });

  it("reports a secret or oversized file (the index records it as skipped) but never an ignored one", async () => {
    await startWatcher();
    project.write(".env", "TOKEN=1\n");
    await waitUntilReported((paths) => paths.length > 0);
    expect(reported()).toEqual([".env"]);
  });

  it("flush reports what it has seen at once, before the quiet time ends: a file written just before is named", async () => {
    await startWatcher(60_000);
    project.write("src/a.ts", "export const a = 10;\n");
    project.write("src/new.ts", "export const n = 1;\n");
    project.remove("src/b.ts");
    await watcher?.flush();
    expect(reported()).toEqual(["src/a.ts", "src/b.ts", "src/new.ts"]);
    await watcher?.flush();
    expect(batches).toHaveLength(1);
  });

  it("a flush asked of a closed watcher fails rather than waits", async () => {
    await startWatcher();
    const closed = watcher;
    await closed?.close();
    await expect(closed?.flush()).rejects.toThrow(/not running/);
  });
});
