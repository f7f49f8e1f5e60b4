import { afterEach, describe, expect, it } from "vitest";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { holdIndexLock, type LockHolderProcess } from "../helpers/lock-holder.js";
import { isRunning } from "../helpers/process-state.js";
import { createTempProject } from "../helpers/temp-project.js";
import { manyFiles, PROGRESS } from "./indexing-fixtures.js";
import { createAppFixture } from "./app-fixture.js";
import type { RenderedApp } from "./render-app.js";

// Made before the holder's hook, so that the holder is killed before the apps close (after-hooks run last-made first).
const tui = createAppFixture({ fakeModel: false });
let holder: LockHolderProcess | undefined;
afterEach(async () => {
  await holder?.kill();
  holder = undefined;
});

/** The pid named by the project's index lock once someone other than this process holds it. */
async function otherLockHolder(rendered: RenderedApp): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const pid = rendered.services.indexLock.holder()?.pid;
    if (pid !== undefined && pid !== process.pid) return pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("No other process took the index lock.");
}

describe("a large pass runs in a sylk index process of its own", () => {
  it("the first index runs there, the screen shows its progress, and this process keeps none of what it indexed", async () => {
    const app = await tui.render({ files: manyFiles(1_500), separateIndexProcessAbove: 100 });
    await app.waitFor("Index this project?");
    await app.write("1");
    const indexingPid = await otherLockHolder(app);
    expect(isRunning(indexingPid)).toBe(true);
    await app.waitFor("index: fresh", 60_000);
    expect(app.frames().some((seen) => PROGRESS.test(seen))).toBe(true);
    expect(app.frames().some((seen) => /index: indexing [\d,]+\/1,500/.test(seen))).toBe(true);
    expect(app.frame()).toMatch(/Indexed: 1,500 files indexed in/);
    // The full-text index was built and saved over there: this process loads it only when it searches.
    expect(app.services.codeFullText.isLoaded).toBe(false);
    expect(app.services.files.has("src/module-1499.ts")).toBe(true);
    expect(app.services.consent.indexConsent()).toBe(true);
    await app.submit("/search handler1234");
    await app.waitFor(/src\/module-1234\.ts:1-3/);
  }, 90_000);

  it("a small pass stays in this process", async () => {
    const app = await tui.render({ files: manyFiles(20), separateIndexProcessAbove: 100 });
    await app.waitFor("Index this project?");
    await app.write("1");
    await app.waitFor("index: fresh");
    // Built here, document by document, as the writer committed each file.
    expect(app.services.codeFullText.isLoaded).toBe(true);
  });

  it("quitting during the first index stops the index process and frees the lock", async () => {
    const app = await tui.render({ files: manyFiles(3_000), separateIndexProcessAbove: 100 });
    await app.waitFor("Index this project?");
    await app.write("1");
    const indexingPid = await otherLockHolder(app);
    await app.waitFor(PROGRESS, 60_000);
    const services = app.services;
    await app.close();
    expect(isRunning(indexingPid)).toBe(false);
    expect(services.indexLock.holder()).toBeUndefined();
  }, 90_000);

  it("waits, and says so, while another process holds the index; indexes once it is free", async () => {
    const project = createTempProject(manyFiles(200));
    const paths = resolveProjectPaths(project.root, project.env);
    holder = await holdIndexLock(paths.indexLock, paths.root);
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project, consent: true, separateIndexProcessAbove: 100 });
      await app.waitFor(`index: waiting for pid ${holder.pid}`, 30_000);
      await holder.kill();
      await app.waitFor("index: fresh", 60_000);
      expect(app.services.files.has("src/module-199.ts")).toBe(true);
    } finally {
      // Before the project is removed; the fixture's close after the test then does nothing.
      await app?.close();
      project.cleanup();
    }
  }, 90_000);

  it("a code index this process loaded meanwhile is let go after the run, and the next search loads the saved one", async () => {
    const project = createTempProject(manyFiles(20));
    const paths = resolveProjectPaths(project.root, project.env);
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project, consent: true, separateIndexProcessAbove: 100 });
      await app.waitFor("index: fresh");
      await app.close();
      for (let index = 20; index < 300; index++) {
        project.write(`src/more/module-${index}.ts`, `export function handler${index}(input: number) {\n  return input + ${index};\n}\n`);
      }
      holder = await holdIndexLock(paths.indexLock, paths.root);
      app = await tui.render({ project, separateIndexProcessAbove: 100 });
      await app.waitFor(`index: waiting for pid ${holder.pid}`, 30_000);
      // A search while the index is busy loads the code index here.
      await app.submit("/search handler7");
      await app.waitFor(/src\/module-7\.ts:1-3/);
      expect(app.services.codeFullText.isLoaded).toBe(true);
      await holder.kill();
      await app.waitFor("Indexed: 280 files indexed in", 60_000);
      expect(app.services.codeFullText.isLoaded).toBe(false);
      await app.submit("/search handler250");
      await app.waitFor(/src\/more\/module-250\.ts:1-3/);
    } finally {
      // Before the project is removed; the fixture's close after the test then does nothing.
      await app?.close();
      project.cleanup();
    }
  }, 90_000);
});
