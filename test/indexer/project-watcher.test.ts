import { mkdirSync, rmSync, writeFileSync } from "node:fs";
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

async function waitForBatch(count = 1, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (batches.length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} batch(es), got ${JSON.stringify(batches)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const reported = () => [...new Set(batches.flat())].sort();

describe("ProjectWatcher", () => {
  it("reports added, changed and deleted files as one debounced batch of relative paths", async () => {
    // Quiet time well above how far apart a loaded machine delivers the three events.
    await startWatcher(800);
    project.write("src/a.ts", "export const a = 10;\n");
    project.write("src/new/d.ts", "export const d = 4;\n");
    project.remove("src/b.ts");
    await waitForBatch();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(batches).toHaveLength(1);
    expect(batches[0]).toEqual(["src/a.ts", "src/b.ts", "src/new/d.ts"]);
  });

  it("ignores what the indexer ignores: excluded directories, .gitignore'd files and directories", async () => {
    await startWatcher();
    project.write("node_modules/pkg/index.js", "module.exports = 2;\n");
    project.write("generated/out.ts", "export const generated = false;\n");
    project.write("debug.log", "noise\n");
    project.write("package-lock.json", "{}\n");
    project.write("src/kept.ts", "export const kept = true;\n");
    await waitForBatch();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reported()).toEqual(["src/kept.ts"]);
    const watched = (await watcher?.watchedDirectories()) ?? [];
    expect(watched).toContain("src");
    expect(watched.filter((path) => path.startsWith("node_modules") || path.startsWith("generated"))).toEqual([]);
  });

  it("reports every file of a deleted directory", async () => {
    await startWatcher();
    rmSync(join(project.root, "lib"), { recursive: true, force: true });
    await waitForBatch();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reported()).toEqual(["lib/old/c.ts"]);
  });

  it("watches a directory that appears after it started, and stops reporting after close()", async () => {
    await startWatcher();
    mkdirSync(join(project.root, "pkg/inner"), { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(join(project.root, "pkg/inner/e.ts"), "export const e = 5;\n");
    await waitForBatch();
    expect(reported()).toContain("pkg/inner/e.ts");

    await watcher?.close();
    const before = batches.length;
    project.write("src/after-close.ts", "x\n");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(batches.length).toBe(before);
  });

  it("reports a secret or oversized file (the index records it as skipped) but never an ignored one", async () => {
    await startWatcher();
    project.write(".env", "TOKEN=1\n");
    await waitForBatch();
    expect(reported()).toEqual([".env"]);
  });
});
