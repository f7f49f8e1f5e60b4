import { utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../src/agent/permissions/permission-policy.js";
import type { GrepIndex } from "../../src/agent/tools/grep-files.js";
import { createGrepTool } from "../../src/agent/tools/grep.js";
import { Ripgrep } from "../../src/agent/tools/grep-ripgrep.js";
import { GrepThread } from "../../src/agent/tools/grep-thread.js";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.js";
import { createGrepIndex } from "../../src/app/grep-index.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import {
  expectSameAnswers,
  GREP_PROJECT_FILES,
  type GrepCall,
  grepOnProject,
  openIndexedProject,
  writeBinaryBlob,
} from "./grep-index-fixtures.js";

const installedRipgrep = Ripgrep.onPath(process.env);
let project: TempProject;
let services: ProjectServices;
let thread: GrepThread;

beforeEach(async () => {
  project = createTempProject(GREP_PROJECT_FILES);
  writeBinaryBlob(project);
  services = await openIndexedProject(project);
  thread = new GrepThread();
});
afterEach(async () => {
  thread.close();
  await services.close();
  project.cleanup();
});

/** grep on this test's project, with the project index or with a walk per call, and ripgrep when given. */
function grepWith(index: GrepIndex | undefined, ripgrep?: Ripgrep): GrepCall {
  return grepOnProject(services, thread, project.root)(index, ripgrep);
}

/** An index that counts what grep asked of it. */
function counting(index: GrepIndex): { index: GrepIndex; narrowed: () => number } {
  let narrowed = 0;
  return {
    index: {
      async files(signal, under, options) {
        const files = await index.files(signal, under, options);
        if (!files) return files;
        return {
          paths: files.paths,
          mayHold: (alternatives, ignoreCase) => {
            const held = files.mayHold(alternatives, ignoreCase);
            if (held) narrowed++;
            return held;
          },
        };
      },
    },
    narrowed: () => narrowed,
  };
}

describe("grep served by the project index", () => {
  it("answers as the walk does, narrowing literal identifiers through the full-text index", async () => {
    const { index, narrowed } = counting(services.grepIndex);
    const indexed = grepWith(index);
    const walked = grepWith(undefined);
    await expectSameAnswers(indexed, walked);
    expect(await indexed({ pattern: "createUserAccount\\(" })).toContain("docs/notes.md:1:");
    expect(narrowed()).toBeGreaterThan(0);
  });

  it.skipIf(!installedRipgrep)(
    "without a watcher to vouch for the tree, checks the whole tree and lists one directory with ripgrep, answering as the walk does",
    async () => {
      const asked: Array<{ under: string | undefined; checkDisk: boolean | undefined }> = [];
      const index: GrepIndex = {
        files: (signal, under, options) => {
          asked.push({ under, checkDisk: options?.checkDisk });
          return services.grepIndex.files(signal, under, options);
        },
      };
      const listed = grepWith(index, installedRipgrep);
      const walked = grepWith(undefined);
      project.write("src/added.ts", "export const createUserAccountLater = 1;\n");
      await expectSameAnswers(listed, walked);
      expect(await listed({ pattern: "createUserAccount", path: "src" })).toContain("src/added.ts:1:");
      // A name was added in src: the stored states no longer list it. A directory is asked of the index without a check
      // of the disk, and rg lists it; the whole tree is checked.
      expect(asked.filter(({ checkDisk }) => checkDisk === false).map(({ under }) => under)).toEqual(["src", "src", "ignored", "src"]);
      expect(asked.filter(({ checkDisk }) => checkDisk === true).every(({ under }) => under === undefined)).toBe(true);
    },
  );

  it("reads the files the index cannot vouch for: changed after indexing, added after, removed", async () => {
    const indexed = grepWith(services.grepIndex);
    const walked = grepWith(undefined);
    project.write("src/other.ts", "export const userCount = createUserAccount('late');\n");
    // Same size and an older time than indexed would still be a change the walk sees: keep the size, move the time.
    project.write("src/account.ts", "export function createUserAccount(name: string) {\n  return { nome };\n}\n");
    utimesSync(join(project.root, "src/account.ts"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    project.write("src/added/new-file.ts", "createUserAccount(1);\n");
    project.remove("src/caller.ts");
    await expectSameAnswers(indexed, walked);
    const answer = await indexed({ pattern: "createUserAccount\\(" });
    expect(answer).toContain("src/other.ts:1:");
    expect(answer).toContain("src/added/new-file.ts:1:");
    expect(answer).not.toContain("src/caller.ts");
    expect(await indexed({ pattern: "nome" })).toBe("src/account.ts:2:   return { nome };");
    // An ignore file changed above a searched directory: the index no longer vouches for what it lists there.
    project.write(".gitignore", "ignored/\nsrc/other.ts\n");
    await expectSameAnswers(indexed, walked);
    expect(await indexed({ pattern: "createUserAccount\\(", path: "src" })).not.toContain("src/other.ts");
  });

  it("without a watcher, lists the tree by its directories when none was added or removed, with no fresh check, and reads what changed in place", async () => {
    let freshChecks = 0;
    const index = createGrepIndex({
      root: project.root,
      config: services.loadedConfig.config.index,
      indexer: {
        lastRefresh: () => services.indexer.lastRefresh(),
        checkFreshness: () => {
          freshChecks++;
          return services.indexer.checkFreshness();
        },
        storedDirectoryStates: () => services.indexer.storedDirectoryStates(),
      },
      files: services.files,
      fullText: services.codeFullText,
      sketches: services.fileSketches,
      racyWindowMs: 0,
    });
    const indexed = grepWith(index);
    const walked = grepWith(undefined);
    // Changed in place, no name added or removed: src/other.ts now holds what the index says it lacks.
    project.write("src/other.ts", "export const userCount = createUserAccount('late');\n");
    // Grown past what the index reads: the walk leaves it out, and so must a listing that did not stat it.
    project.write("docs/notes.md", `Call createUserAccount( with a name.\n${"x".repeat(1_100_000)}\n`);
    // `account` may continue a word on both sides: no term is certain, and every file is read.
    const pattern = { pattern: "Account\\(", ignore_case: true };
    const answer = await indexed(pattern);
    expect(answer).toContain("src/other.ts:1:");
    expect(answer).not.toContain("docs/notes.md");
    expect(answer).toBe(await walked(pattern));
    expect(freshChecks).toBe(0);
    // One the index narrows too: the files it rules out are stat'ed on grep's threads, and src/other.ts is read.
    expect(await indexed({ pattern: "createUserAccount\\(" })).toContain("src/other.ts:1:");
    expect(freshChecks).toBe(0);
    await expectSameAnswers(indexed, walked);
    // A name added: the listing cannot be trusted, and the whole tree is checked.
    project.write("src/added.ts", "account(2);\n");
    const before = freshChecks;
    expect(await indexed(pattern)).toContain("src/added.ts:1:");
    expect(freshChecks).toBe(before + 1);
  });

  it("walks on a grep thread, without the index, until a first index has completed", async () => {
    const fresh = createTempProject({ "a.ts": "createUserAccount(1);\n" });
    const unindexed = openProject({ root: fresh.root, env: fresh.env });
    try {
      // An index that never answers stands for one this thread would wait on: it is not asked.
      let asked = false;
      const waiting: GrepIndex = {
        files: async (signal) => {
          if (unindexed.indexer.lastRefresh() === undefined) return unindexed.grepIndex.files(signal);
          asked = true;
          return new Promise(() => undefined);
        },
      };
      const registry = new ToolRegistry([createGrepTool({ thread, index: waiting })], new PermissionPolicy("bypass"));
      const result = await registry.run(
        { id: "1", name: "grep", input: { pattern: "createUserAccount" } },
        { root: fresh.root, signal: new AbortController().signal, extraDirectories: [] },
      );
      expect(result.output).toBe("a.ts:1: createUserAccount(1);");
      expect(asked).toBe(false);
      expect(await unindexed.grepIndex.files(new AbortController().signal)).toBeUndefined();
    } finally {
      await unindexed.close();
      fresh.cleanup();
    }
  });

  it("is cancelled by its signal while the files are listed, without waiting for the listing to notice", async () => {
    const controller = new AbortController();
    // An index that never answers: the call must end on the abort alone (it would hang here otherwise).
    const hanging: GrepIndex = { files: () => new Promise(() => undefined) };
    const registry = new ToolRegistry([createGrepTool({ thread, index: hanging })], new PermissionPolicy("bypass"));
    const running = registry.run(
      { id: "1", name: "grep", input: { pattern: "createUserAccount" } },
      { root: project.root, signal: controller.signal, extraDirectories: [] },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ isError: true, output: "grep was cancelled." });
  });
});
