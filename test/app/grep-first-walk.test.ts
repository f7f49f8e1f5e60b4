import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { IndexedFiles } from "../../src/agent/tools/grep-files.js";
import { GrepThread } from "../../src/agent/tools/grep-thread.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { scanTree } from "../../src/indexer/scanner.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { expectSameAnswers, GREP_PROJECT_FILES, grepOnProject, writeBinaryBlob } from "./grep-index-fixtures.js";

/** More files than one worker thread's tasks in flight (4 of 32 files): a run stopped at its first batch leaves most uncommitted. */
const FILLERS = 400;

let project: TempProject;
let services: ProjectServices;
let thread: GrepThread;

beforeEach(async () => {
  const fillers = Object.fromEntries(
    Array.from({ length: FILLERS }, (_, index) => [`pkg/m${index % 4}/filler${index}.ts`, `export const filler${index} = ${index};\n`]),
  );
  project = createTempProject({
    ...GREP_PROJECT_FILES,
    ...fillers,
    ".sylkrc": JSON.stringify({ index: { batchSize: 1, workerThreads: 1, maxConcurrency: 1 } }),
    ".hidden/notes.md": "createUserAccount( in a hidden directory\n",
    "keys/.env": "TOKEN=createUserAccount\n",
  });
  writeBinaryBlob(project);
  // Read after their last change, the directories' listings are trusted (racy window 0).
  await new Promise((resolve) => setTimeout(resolve, 20));
  services = openProject({ root: project.root, env: project.env, racyWindowMs: 0 });
  thread = new GrepThread();
});
afterEach(async () => {
  thread.close();
  await services.close();
  project.cleanup();
});

/** A first index stopped after a few files are committed: no complete run, as while a first index runs. */
async function firstIndexStoppedEarly(): Promise<void> {
  const stop = new AbortController();
  const run = services.indexer.run(stop.signal);
  for (let step = await run.next(); !step.done; step = await run.next()) {
    if (step.value.phase === "indexing" && step.value.indexed > 0) stop.abort();
  }
  expect(services.indexer.lastRefresh()).toBeUndefined();
}

function listing(under?: string): Promise<IndexedFiles | undefined> {
  return services.grepIndex.files(new AbortController().signal, under, { checkDisk: false });
}

function committedPaths(): Set<string> {
  return new Set(
    services.files
      .manifestUnder("")
      .filter((row) => row.status === "indexed")
      .map((row) => row.path),
  );
}

describe("grep while a first index runs", () => {
  it("lists the tree as the run's walk took it, and rules out only committed files by their sketches", async () => {
    await firstIndexStoppedEarly();
    const committed = committedPaths();
    expect(committed.size).toBeGreaterThan(0);
    expect(committed.size).toBeLessThan(FILLERS);

    const listed = await listing();
    expect(listed).toBeDefined();
    const walked = await scanTree(project.root, services.loadedConfig.config.index);
    // Every file the walk takes, but those with a secret's name, which grep never reads.
    const taken = walked.changed.flatMap((directory) => [
      ...directory.files.map((file) => file.path),
      ...directory.skipped.filter((file) => file.reason !== "secret").map((file) => file.path),
    ]);
    expect(taken).not.toContain("keys/.env");
    expect(taken).toContain(".hidden/notes.md");
    expect([...(listed?.paths ?? [])].sort()).toEqual(taken.sort());

    const mayHold = listed?.mayHold([["createUserAccount"]], false);
    expect(mayHold).toBeDefined();
    for (const path of listed?.paths ?? []) {
      // Committed without the literal: ruled out (a sketch's false positive for 15 trigrams is about one in a million).
      // Not committed: read, whatever it holds.
      const holds = readFileSync(join(project.root, path), "latin1").toLowerCase().includes("createuseraccount");
      expect(mayHold?.has(path), path).toBe(holds || !committed.has(path));
    }
    expect(listed?.unlessChanged?.size).toBe([...committed].filter((path) => listed?.paths.includes(path)).length);
  });

  it("answers every search as the walk does, also for a committed file changed in place since", async () => {
    await firstIndexStoppedEarly();
    const grep = grepOnProject(services, thread, project.root);
    await expectSameAnswers(grep(services.grepIndex), grep(undefined));
    const [changed] = [...committedPaths()].filter((path) => path.startsWith("pkg/"));
    expect(changed).toBeDefined();
    // The same name, new bytes: no directory changes, the sketch no longer holds for it.
    project.write(changed as string, "export const lateAddition = createUserAccount('late');\n");
    expect(await grep(services.grepIndex)({ pattern: "lateAddition" })).toBe(
      `${changed}:1: export const lateAddition = createUserAccount('late');`,
    );
    await expectSameAnswers(grep(services.grepIndex), grep(undefined));
  });

  it("stops listing by the walk once a directory changed, and once a run completes", async () => {
    await firstIndexStoppedEarly();
    expect(await listing("pkg")).toBeDefined();
    project.write("pkg/m1/added.ts", "export const added = 1;\n");
    expect(await listing("pkg")).toBeUndefined();
    expect(await listing("src")).toBeDefined();
    const grep = grepOnProject(services, thread, project.root);
    expect(await grep(services.grepIndex)({ pattern: "added = 1" })).toBe("pkg/m1/added.ts:1: export const added = 1;");

    await drainIndex(services);
    expect(services.indexer.lastRefresh()).toBeDefined();
    expect(services.indexer.firstWalkVersion()).toBeUndefined();
  });

  it("never lets a stopped first index's walk stand for the directories' stored states", async () => {
    await firstIndexStoppedEarly();
    expect(services.indexer.firstWalkVersion()).toBeDefined();
    expect(services.indexer.storedDirectoryStates()).toBeUndefined();
    const check = await services.indexer.checkFreshness();
    expect(check.diff.added.length).toBeGreaterThan(0);
  });
});
