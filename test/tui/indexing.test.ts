import { afterEach, describe, expect, it } from "vitest";
import { resolveProjectPaths } from "../../src/project/project-paths.js";
import { progressLine } from "../../src/tui/components/progress-bar.js";
import { holdIndexLock, type LockHolderProcess } from "../helpers/lock-holder.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";
import { manyFiles, PROGRESS } from "./indexing-fixtures.js";
import { createAppFixture } from "./app-fixture.js";
import { KEY, type RenderedApp } from "./render-app.js";

// Made before the holder's hook, so that the holder is killed before the apps close (after-hooks run last-made first).
const tui = createAppFixture({ fakeModel: false });
let holder: LockHolderProcess | undefined;
afterEach(async () => {
  await holder?.kill();
  holder = undefined;
});

describe("first run: consent, then indexing in the background", () => {
  it("asks what will be indexed and where the index lives; yes starts indexing with a progress line", async () => {
    // Enough files that indexing outlasts a few progress redraws (at most four a second) on a fast machine.
    const app = await tui.render({ files: manyFiles(2_000) });
    await app.waitFor("Index this project?");
    const frame = app.frame();
    expect(frame).toContain(app.project.root);
    expect(frame).toMatch(/Skipped: secrets/);
    expect(frame).toMatch(/\.gitignore/);
    expect(frame).toMatch(/binary files and files over 1 MiB/);
    expect(frame.replace(/[│\s]+/g, "")).toContain(app.services.paths.database.replace(/\s+/g, ""));
    expect(frame).toMatch(
      /1\. Yes \(y\)[\s\S]*2\. No, not now \(chat without the index\) \(n\)[\s\S]*3\. No, and don't ask again for this project/,
    );
    expect(frame).toContain("index: not started");

    await app.write("1");
    await app.waitFor("index: fresh");
    expect(app.frames().some((seen) => PROGRESS.test(seen))).toBe(true);
    expect(app.frames().some((seen) => /index: indexing [\d,]+\/2,000/.test(seen))).toBe(true);
    expect(app.frame()).toMatch(/Indexed: 2,000 files indexed in/);
    // Yes is remembered, as `sylk index` remembers it.
    expect(app.services.consent.indexConsent()).toBe(true);
  });

  it("yes is not asked again, and counts for sylk ask", async () => {
    const project = createTempProject(manyFiles(3));
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project });
      await app.waitFor("Index this project?");
      await app.write("y");
      await app.waitFor("index: fresh");
      await app.close();
      app = await tui.render({ project });
      await app.waitFor("index: fresh");
      expect(app.frames().some((seen) => seen.includes("Index this project?"))).toBe(false);
      await app.close();
      const asked = await runCli(["ask", "--provider", "none", "where is handler1?"], {
        cwd: project.root,
        env: project.env,
        timeoutMs: 60_000,
      });
      expect(asked.stderr).not.toContain("has not been allowed to index");
      expect(asked.code).toBe(0);
      expect(asked.stdout).toContain("src/module-1.ts");
    } finally {
      await app?.close(); // before the project is removed
      project.cleanup();
    }
  });

  it("no, not now: chat works without the index, and the question comes again next time", async () => {
    const project = createTempProject(manyFiles(3));
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project });
      await app.waitFor("Index this project?");
      await app.write("n");
      await app.waitFor("index: off");
      expect(app.services.consent.indexConsent()).toBeUndefined();
      await app.close();
      app = await tui.render({ project });
      await app.waitFor("Index this project?");
    } finally {
      await app?.close(); // before the project is removed
      project.cleanup();
    }
  });

  it("no, and don't ask again: chat still works without the index, and the status line says index: off", async () => {
    const app = await tui.render({ files: manyFiles(3) });
    await app.waitFor("Index this project?");
    await app.write("3");
    await app.waitFor("index: off");
    expect(app.services.consent.indexConsent()).toBe(false);
    expect(app.frame()).toContain("Indexing is off");
    await app.submit("where is handler1?");
    await app.waitFor("The index has nothing that matches this question.");
  });

  it("never blocks the prompt: while another process holds the index, the user chats; indexing finishes after", async () => {
    const project = createTempProject(manyFiles(20));
    const paths = resolveProjectPaths(project.root, project.env);
    holder = await holdIndexLock(paths.indexLock, paths.root);
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project, consent: true });
      await app.waitFor(`index: waiting for pid ${holder.pid}`);
      await app.submit("a question while the index is busy");
      await app.waitFor("No model was used");
      await holder.kill();
      await app.waitFor("index: fresh");
      await app.submit("/search handler7");
      await app.waitFor(/src\/module-7\.ts:1-3/);
    } finally {
      await app?.close(); // before the project is removed
      project.cleanup();
    }
  });

  it("typing during a cold index shows at once (keys are not held back by indexing)", async () => {
    // Enough files that indexing outlasts the keystrokes on a loaded machine:
    // with 400, a faster write path sometimes finished first.
    const app = await tui.render({ files: manyFiles(2_000) });
    await app.waitFor("Index this project?");
    await app.write("1");
    await app.waitFor(PROGRESS);
    await app.write("typed while indexing");
    await app.waitFor("typed while indexing");
    await app.waitFor("index: fresh");
    const both = app.frames().some((seen) => seen.includes("typed while indexing") && PROGRESS.test(seen));
    expect(both).toBe(true);
    await app.write(KEY.ctrlC);
    await app.waitFor("Prompt cleared");
  });
});

describe("the progress line", () => {
  it("uses sylk index's format: bar, percent, counts and rate", () => {
    const line = progressLine({
      state: "indexing",
      progress: { phase: "indexing", indexed: 1_234, total: 1_542, failed: 0, elapsedMs: 3_000 },
    });
    expect(line).toBe("Indexing [████████████████░░░░] 80% - Indexed 1,234 / 1,542 files (411 files/s)");
    expect(progressLine({ state: "indexing", progress: { phase: "scanning", indexed: 0, total: 0, failed: 0, elapsedMs: 0 } })).toBe(
      "Scanning project…",
    );
    expect(progressLine({ state: "fresh" })).toBeUndefined();
    expect(progressLine({ state: "embedding", embedded: 64, remaining: 100 })).toBe("Embedding 64 (100 left)");
  });
});
