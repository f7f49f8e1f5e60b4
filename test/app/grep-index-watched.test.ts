import { utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { GrepIndex } from "../../src/agent/tools/grep-files.js";
import { GrepThread } from "../../src/agent/tools/grep-thread.js";
import { BackgroundIndexing } from "../../src/app/background-indexing.js";
import { createGrepIndex } from "../../src/app/grep-index.js";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { ProjectWatcher } from "../../src/indexer/project-watcher.js";
import { WatchedChanges } from "../../src/indexer/watched-changes.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { expectSameAnswers, GREP_PROJECT_FILES, type GrepCall, grepThrough, writeBinaryBlob } from "./grep-index-fixtures.js";

let project: TempProject;
let services: ProjectServices;
let indexing: BackgroundIndexing;
let thread: GrepThread;
/** Reports a watcher error, as the real watcher does when the kernel refuses a watch. */
let failWatcher: (error: Error) => void;
const asked = { freshChecks: 0, subtreeChecks: 0, wholeManifests: 0 };

beforeEach(async () => {
  project = createTempProject({
    ...GREP_PROJECT_FILES,
    // The repository's own excludes, which the tree's watch (it leaves `.git` out) does not see.
    ".git/info/exclude": "# git ls-files --others --exclude-from=.git/info/exclude\n",
    // Beside `src/` in the path order, not below it.
    "src-extra/name.ts": "export const name = createUserAccount('n');\n",
    "srcs.ts": "const name = 'createUserAccount';\n",
  });
  writeBinaryBlob(project);
  services = openProject({ root: project.root, env: project.env, interactive: true, racyWindowMs: 0 });
  const opened = services;
  // The session's background indexing with the real watcher (a long quiet time: only a flush reports in time).
  indexing = new BackgroundIndexing({
    root: opened.paths.root,
    config: opened.loadedConfig.config.index,
    indexer: opened.indexer,
    lock: opened.indexLock,
    backfill: opened.backfill,
    changes: opened.watchedChanges,
    createWatcher: (onChange, onError) => {
      failWatcher = onError;
      return new ProjectWatcher({
        root: opened.paths.root,
        config: opened.loadedConfig.config.index,
        onChange,
        onError,
        debounceMs: 30_000,
      });
    },
  });
  indexing.start();
  await waitFor(() => opened.watchedChanges.vouching);
  thread = new GrepThread();
  Object.assign(asked, { freshChecks: 0, subtreeChecks: 0, wholeManifests: 0 });
});
afterEach(async () => {
  thread.close();
  await indexing.close();
  await services.close();
  project.cleanup();
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The session's grep index over the same services, counting the walks and whole-manifest reads it asks for. */
function countedIndex(changes: WatchedChanges = services.watchedChanges): GrepIndex {
  const { indexer, files } = services;
  return createGrepIndex({
    root: project.root,
    config: services.loadedConfig.config.index,
    indexer: {
      lastRefresh: () => indexer.lastRefresh(),
      checkFreshness: () => {
        asked.freshChecks++;
        return indexer.checkFreshness();
      },
      storedDirectoryStates: () => {
        asked.subtreeChecks++;
        return indexer.storedDirectoryStates();
      },
    },
    files: {
      manifestUnder: (directory) => {
        if (directory === "") asked.wholeManifests++;
        return files.manifestUnder(directory);
      },
      manifestVersion: () => files.manifestVersion(),
      fileIdsOf: (chunks) => files.fileIdsOf(chunks),
      allChunkFileIds: () => files.allChunkFileIds(),
    },
    fullText: services.codeFullText,
    sketches: services.fileSketches,
    racyWindowMs: 0,
    changes,
  });
}

function grepWith(index: GrepIndex | undefined, signal?: AbortSignal): GrepCall {
  const config = services.loadedConfig.config.index;
  return grepThrough({ thread, config, root: project.root, index, ...(signal ? { signal } : {}) });
}

async function expectSameAsWalk(indexed: GrepCall): Promise<void> {
  await expectSameAnswers(indexed, grepWith(undefined));
}

describe("grep while the project watcher vouches for the tree", () => {
  it("answers as the walk does with no walk and no stat of the tree, files changed and added since read at once", async () => {
    const indexed = grepWith(countedIndex());
    await expectSameAsWalk(indexed);
    // Written and grepped at once: the watcher's batch is 30 s away, its flush names them.
    project.write("src/other.ts", "export const userCount = createUserAccount('late');\n");
    project.write("src/account.ts", "export function createUserAccount(name: string) {\n  return { nome };\n}\n");
    utimesSync(join(project.root, "src/account.ts"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    project.write("src/added/new-file.ts", "createUserAccount(1);\n");
    project.remove("src/caller.ts");
    const answer = await indexed({ pattern: "createUserAccount\\(" });
    expect(answer).toContain("src/other.ts:1:");
    expect(answer).toContain("src/added/new-file.ts:1:");
    expect(answer).not.toContain("src/caller.ts");
    expect(await indexed({ pattern: "nome" })).toBe("src/account.ts:2:   return { nome };");
    await expectSameAsWalk(indexed);
    expect(asked).toMatchObject({ freshChecks: 0, subtreeChecks: 0 });
  });

  it("reads only the manifest rows below a searched directory", async () => {
    const indexed = grepWith(countedIndex());
    expect(await indexed({ pattern: "createUserAccount", path: "src" })).toContain("src/caller.ts:2:");
    expect(await indexed({ pattern: "createUserAccount", path: "docs" })).toBe("docs/notes.md:1: Call createUserAccount( with a name.");
    expect(asked).toEqual({ freshChecks: 0, subtreeChecks: 0, wholeManifests: 0 });
  });

  it("goes back to the fresh check after a watcher error, and after an ignore file changed until a pass has read it", async () => {
    const indexed = grepWith(countedIndex());
    project.write(".gitignore", "ignored/\nsrc/other.ts\n");
    await expectSameAsWalk(indexed);
    expect(await indexed({ pattern: "userCount" })).toBe("No matches for /userCount/.");
    expect(asked.freshChecks).toBeGreaterThan(0);
    // The change reaches the background indexing, whose full pass vouches again.
    await waitFor(() => services.watchedChanges.vouching);
    asked.freshChecks = 0;
    await expectSameAsWalk(indexed);
    expect(asked.freshChecks).toBe(0);

    failWatcher(new Error("ENOSPC: System limit for number of file watchers reached"));
    project.write("src/after-error.ts", "createUserAccount(2);\n");
    await expectSameAsWalk(indexed);
    expect(await indexed({ pattern: "createUserAccount\\(" })).toContain("src/after-error.ts:1:");
    expect(asked.freshChecks).toBeGreaterThan(0);
  });

  it("goes back to the fresh check after the repository's .git/info/exclude changed, until a pass has read it", async () => {
    const indexed = grepWith(countedIndex());
    expect(await indexed({ pattern: "userCount" })).toBe("src/other.ts:1: export const userCount = 3;");
    const passes = vi.spyOn(services.indexer, "run");
    project.write(".git/info/exclude", "src/other.ts\n");
    expect(await indexed({ pattern: "userCount" })).toBe("No matches for /userCount/.");
    // Until a pass has read the new excludes grep checks the disk; when the watcher's report started
    // that pass and it ended before grep asked, the watch vouches again, with the excludes applied.
    expect(asked.freshChecks + passes.mock.calls.length).toBeGreaterThan(0);
    passes.mockRestore();
    await expectSameAsWalk(indexed);
    await waitFor(() => services.watchedChanges.vouching);
    asked.freshChecks = 0;
    project.write(".git/info/exclude", "");
    expect(await indexed({ pattern: "userCount" })).toBe("src/other.ts:1: export const userCount = 3;");
    await expectSameAsWalk(indexed);
  });

  it("is cancelled within half a second while waiting on a watcher that does not answer", async () => {
    const stuck = new WatchedChanges();
    stuck.vouch(() => new Promise(() => undefined));
    const controller = new AbortController();
    const running = grepWith(countedIndex(stuck), controller.signal)({ pattern: "createUserAccount" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const aborted = performance.now();
    controller.abort();
    expect(await running).toBe("grep was cancelled.");
    expect(performance.now() - aborted).toBeLessThan(500);
  });
});
