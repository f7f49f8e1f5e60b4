import { mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import Database from "better-sqlite3";
import { openProject, type ProjectServices } from "../../src/app/project-services.js";
import { defaultConfig } from "../../src/config/schema.js";
import type { DirectoryState } from "../../src/indexer/directory-state.js";
import { diffManifest } from "../../src/indexer/manifest-diff.js";
import { scanTree } from "../../src/indexer/scanner.js";
import { openDatabase } from "../../src/store/database.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { withProjectDatabase } from "../helpers/project-database.js";

let project: TempProject;
let services: ProjectServices;

async function index(target: ProjectServices = services): Promise<void> {
  await drainIndex(target);
}

/** Every directory of the tree (the root first), absolute. */
function directoriesOf(root: string): string[] {
  const found = [root];
  for (let index = 0; index < found.length; index++) {
    for (const entry of readdirSync(found[index] as string, { withFileTypes: true }))
      if (entry.isDirectory()) found.push(join(found[index] as string, entry.name));
  }
  return found;
}

/** What a full walk (no stored states) says of the tree against the whole manifest: the reference. */
async function fullDiff(target: ProjectServices, root: string) {
  const scan = await scanTree(root, target.loadedConfig.config.index);
  const diff = diffManifest(scan, target.files.manifest());
  return normalised(diff);
}

function normalised(diff: ReturnType<typeof diffManifest>) {
  return {
    added: diff.added.map((file) => file.path).sort(),
    changed: diff.changed.map((file) => file.path).sort(),
    deleted: [...diff.deleted].sort(),
    newlySkipped: diff.newlySkipped.map((file) => file.path).sort(),
  };
}

beforeEach(() => {
  project = createTempProject({
    "src/a.ts": "export const a = 1;\n",
    "src/deep/b.ts": "export const b = 2;\n",
    "docs/guide.md": "# Guide\n",
    "logs/run.log": "noise\n",
    "README.md": "# Readme\n",
  });
  services = openProject({ root: project.root, env: project.env });
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

describe("the incremental fresh check", () => {
  it("finds an unchanged tree fresh without judging a single directory again", async () => {
    await index();
    const report = await services.indexer.checkFreshness();
    expect(report.state).toBe("fresh");
    expect(report.scan.changed).toEqual([]);
    expect(report.scan.directories).toBe(5);
    expect(report.manifest.size).toBe(0);
  });

  it("compares only the directory where a file changed", async () => {
    await index();
    project.write("src/deep/b.ts", "export const b = 3; // longer now\n");
    const report = await services.indexer.checkFreshness();
    expect(report.scan.changed.map((directory) => directory.path)).toEqual(["src/deep"]);
    expect(report.diff.changed.map((file) => file.path)).toEqual(["src/deep/b.ts"]);
    expect([...report.manifest.keys()]).toEqual(["src/deep/b.ts"]);
  });

  it("sees a touched file whose size did not change", async () => {
    await index();
    const future = new Date(Date.now() + 120_000);
    utimesSync(join(project.root, "docs/guide.md"), future, future);
    const report = await services.indexer.checkFreshness();
    expect(report.diff.changed.map((file) => file.path)).toEqual(["docs/guide.md"]);
  });

  it("a changed .gitignore re-judges everything below it: a newly ignored directory leaves the index, and comes back", async () => {
    await index();
    project.write(".gitignore", "logs/\nsrc/deep/\n");
    let report = await services.indexer.checkFreshness();
    expect(report.diff.deleted.sort()).toEqual(["logs/run.log", "src/deep/b.ts"]);
    expect(report.scan.vanished.sort()).toEqual(["logs", "src/deep"]);
    await index();
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");

    project.write(".gitignore", "logs/\n");
    report = await services.indexer.checkFreshness();
    expect(report.diff.added.map((file) => file.path)).toEqual(["src/deep/b.ts"]);
    await index();
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");
  });

  it("ignored files in a directory are left out without being judged again, and taken when un-ignored", async () => {
    project.write(".gitignore", "*.log\n");
    await index();
    project.write("logs/other.log", "more noise\n");
    let report = await services.indexer.checkFreshness();
    expect(report.state).toBe("fresh");
    project.write(".gitignore", "*.tmp\n");
    report = await services.indexer.checkFreshness();
    expect(report.diff.added.map((file) => file.path).sort()).toEqual(["logs/other.log", "logs/run.log"]);
  });

  it("walks everything again when the settings that decide what is taken change", async () => {
    await index();
    await services.close();
    services = openProject({ root: project.root, env: { ...project.env, SYLK_INDEX_EXCLUDE_PATTERNS: '["*.md"]' } });
    const report = await services.indexer.checkFreshness();
    expect(report.diff.deleted.sort()).toEqual(["README.md", "docs/guide.md"]);
    await index();
    expect((await services.indexer.checkFreshness()).state).toBe("fresh");
  });

  it("a file that failed is tried again on the next run", async () => {
    await index();
    // A failed manifest row in an otherwise remembered directory, as a worker crash leaves it.
    withProjectDatabase(services.paths, (db) => {
      db.prepare("UPDATE files SET status = 'failed' WHERE path = 'src/a.ts'").run();
      db.prepare("DELETE FROM directory_states WHERE path = 'src'").run();
    });
    const report = await services.indexer.checkFreshness();
    expect(report.diff.changed.map((file) => file.path)).toEqual(["src/a.ts"]);
  });

  it("agrees with a full walk after any sequence of changes (seeded), trusting every directory snapshot that still matches", async () => {
    const names = ["a.ts", "b.py", "c.md", "d.log", ".env", "e.ts"];
    const directories = ["", "src", "src/x", "src/x/y", "lib", "logs", "node_modules/pkg", "out"];
    const ignoreContents = ["", "*.log\n", "out/\n", "src/x/\n!keep.log\n", "lib\n*.md\n"];
    const action = fc.oneof(
      fc.record({
        kind: fc.constant("write" as const),
        directory: fc.constantFrom(...directories),
        name: fc.constantFrom(...names),
        size: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({ kind: fc.constant("remove" as const), directory: fc.constantFrom(...directories), name: fc.constantFrom(...names) }),
      fc.record({ kind: fc.constant("removeDirectory" as const), directory: fc.constantFrom(...directories.slice(1)) }),
      fc.record({
        kind: fc.constant("rename" as const),
        from: fc.constantFrom(...directories),
        name: fc.constantFrom(...names),
        to: fc.constantFrom(...directories),
        newName: fc.constantFrom(...names),
      }),
      fc.record({
        kind: fc.constant("renameDirectory" as const),
        from: fc.constantFrom(...directories.slice(1)),
        to: fc.constantFrom(...directories.slice(1)),
      }),
      fc.record({
        kind: fc.constant("ignore" as const),
        directory: fc.constantFrom("", "src", "logs"),
        file: fc.constantFrom(".gitignore", ".sylkignore"),
        content: fc.constantFrom(...ignoreContents),
      }),
      fc.record({ kind: fc.constant("index" as const) }),
    );
    // One project for every run, opened once: opening a database and
    // starting the worker threads per run was most of the time, and the
    // runs are independent anyway (below). Its own, not the file's: were it
    // ever stopped midway, it could not change what the next test opens.
    const tree = createTempProject();
    const indexed = openProject({ root: tree.root, env: tree.env, racyWindowMs: -Infinity });
    onTestFinished(async () => {
      await indexed.close();
      tree.cleanup();
    });
    // Every directory an action changed gets an mtime of its own, in the past:
    // the snapshots are trusted (any racy window would hide what these checks
    // are about) and a change never leaves a directory's mtime where it was.
    const past = Date.now() - 3_600_000;
    const settle = (step: number) => {
      const at = new Date(past - step * 1_000);
      for (const directory of directoriesOf(tree.root)) if (statSync(directory).mtimeMs > past) utimesSync(directory, at, at);
    };
    let round = 0;
    let trusted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 16 }), async (actions) => {
        // Each run starts from an empty tree and its index: no file in the
        // manifest and only the root's directory state, whatever the run
        // before left (so a shrunk counterexample replays alike).
        rmSync(tree.root, { recursive: true, force: true });
        mkdirSync(tree.root, { recursive: true });
        settle(round);
        await index(indexed);
        expect(indexed.files.isEmpty()).toBe(true);
        expect([...(indexed.indexer.storedDirectoryStates()?.keys() ?? [])]).toEqual([""]);
        for (const step of actions) {
          round++;
          const at = (name: string, directory: string) => join(tree.root, directory, name);
          if (step.kind === "write") {
            mkdirSync(dirname(at(step.name, step.directory)), { recursive: true });
            writeFileSync(at(step.name, step.directory), "x".repeat(step.size) + String(round));
          } else if (step.kind === "remove") rmSync(at(step.name, step.directory), { force: true });
          else if (step.kind === "removeDirectory") rmSync(join(tree.root, step.directory), { recursive: true, force: true });
          else if (step.kind === "rename") {
            mkdirSync(join(tree.root, step.to), { recursive: true });
            try {
              renameSync(at(step.name, step.from), at(step.newName, step.to));
            } catch {
              // No such file, or a directory in the way: nothing changes.
            }
          } else if (step.kind === "renameDirectory") {
            mkdirSync(dirname(join(tree.root, step.to)), { recursive: true });
            try {
              renameSync(join(tree.root, step.from), join(tree.root, step.to));
            } catch {
              // Missing, into itself, or onto a directory that is not empty: nothing changes.
            }
          } else if (step.kind === "ignore") {
            mkdirSync(join(tree.root, step.directory), { recursive: true });
            writeFileSync(at(step.file, step.directory), `${step.content}# ${round}\n`);
          } else await index(indexed);
          settle(round);
          const incremental = await indexed.indexer.checkFreshness();
          trusted += incremental.scan.directories - incremental.scan.listed;
          expect(normalised(incremental.diff)).toEqual(await fullDiff(indexed, tree.root));
        }
        await index(indexed);
        // "missing" when every file is gone: an empty tree has no index.
        expect((await indexed.indexer.checkFreshness()).state).not.toBe("stale");
        expect(await fullDiff(indexed, tree.root)).toEqual({ added: [], changed: [], deleted: [], newlySkipped: [] });
      }),
      { seed: 1124, numRuns: 80 },
    );
    // The property says something about the snapshots only if they were used.
    expect(trusted).toBeGreaterThan(200);
  });
});

describe("directory snapshots", () => {
  const config = () => defaultConfig().index;
  const statesOf = (scan: Awaited<ReturnType<typeof scanTree>>) =>
    new Map<string, DirectoryState>([...scan.changed, ...scan.restated].map((directory) => [directory.path, directory.state]));

  it("are taken for every directory walked, and spare a directory the readdir while it is unchanged", async () => {
    const past = new Date(Date.now() - 3_600_000);
    for (const directory of directoriesOf(project.root)) utimesSync(directory, past, past);
    const first = await scanTree(project.root, config(), { racyWindowMs: -Infinity });
    expect(first.listed).toBe(5);
    const second = await scanTree(project.root, config(), { previous: statesOf(first), racyWindowMs: -Infinity });
    expect(second).toMatchObject({ changed: [], restated: [], vanished: [], directories: 5, listed: 0, files: first.files });
  });

  it("a directory passed by its snapshot still lends its ignore rules to a changed directory below it", async () => {
    project.write("src/.gitignore", "*.log\n");
    const past = new Date(Date.now() - 3_600_000);
    for (const directory of directoriesOf(project.root)) utimesSync(directory, past, past);
    const first = await scanTree(project.root, config(), { racyWindowMs: -Infinity });
    project.write("src/deep/trace.log", "noise\n");
    project.write("src/deep/c.ts", "export const c = 3;\n");
    const second = await scanTree(project.root, config(), { previous: statesOf(first), racyWindowMs: -Infinity });
    expect(second.listed).toBe(1);
    expect(second.changed.map((directory) => directory.path)).toEqual(["src/deep"]);
    expect(second.changed[0]?.files.map((file) => file.path).sort()).toEqual(["src/deep/b.ts", "src/deep/c.ts"]);
    expect(second.changed[0]?.state.leftOut).toEqual(["trace.log"]);
  });

  it("a file changed in place, or replaced by a symbolic link, in a directory its snapshot still names is found", async () => {
    const past = new Date(Date.now() - 3_600_000);
    for (const directory of directoriesOf(project.root)) utimesSync(directory, past, past);
    const first = await scanTree(project.root, config(), { racyWindowMs: -Infinity });
    project.write("src/a.ts", "export const a = 2;\n"); // same size, a later time
    const touched = await scanTree(project.root, config(), { previous: statesOf(first), racyWindowMs: -Infinity });
    expect(touched.listed).toBe(0);
    expect(touched.changed.map((directory) => directory.path)).toEqual(["src"]);
    expect(touched.changed[0]?.files.map((file) => [file.path, file.size])).toEqual([["src/a.ts", 20]]);

    rmSync(join(project.root, "docs/guide.md"));
    symlinkSync("../README.md", join(project.root, "docs/guide.md"));
    const linked = await scanTree(project.root, config(), { previous: statesOf(first), racyWindowMs: -Infinity });
    expect(linked.changed.map((directory) => directory.path).sort()).toEqual(["docs", "src"]);
    expect(linked.changed.find((directory) => directory.path === "docs")?.files).toEqual([]);
    expect(linked.files).toBe(first.files - 1);
  });

  it("a directory changed within the racy window of its snapshot is listed again", async () => {
    const first = await scanTree(project.root, config());
    project.write("src/new.ts", "export const added = true;\n");
    // An old mtime put back (tar, rsync -a): only the ctime tells when the directory changed.
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(project.root, "src"), past, past);
    // What a listing read in the same clock tick as a change, just before it,
    // would leave: the directory's inode and times as they are now, the names
    // as they were.
    const stats = statSync(join(project.root, "src"));
    const stale = (recordedAfterChangeMs: number) => {
      const states = statesOf(first);
      const state = states.get("src") as DirectoryState;
      const recordedAtMs = Math.max(stats.mtimeMs, stats.ctimeMs) + recordedAfterChangeMs;
      const snapshot = { ...state.snapshot!, ino: stats.ino, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, recordedAtMs };
      return states.set("src", { ...state, snapshot });
    };
    const racy = await scanTree(project.root, config(), { previous: stale(1_000), racyWindowMs: 2_000 });
    expect(racy.changed.map((directory) => directory.path)).toEqual(["src"]);
    expect(racy.changed[0]?.files.map((file) => file.path).sort()).toEqual(["src/a.ts", "src/new.ts"]);
    expect(racy.changed[0]?.state.snapshot?.files).toContain("new.ts");
    // Read well after the change, the same snapshot is believed: the window is all that tells the two apart.
    const believed = await scanTree(project.root, config(), { previous: stale(3_000), racyWindowMs: 2_000 });
    expect(believed.changed).toEqual([]);
  });

  it("a directory whose mtime was put back (as tar or rsync -a do) is listed again: its ctime moved", async () => {
    const src = join(project.root, "src");
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(src, past, past);
    const first = await scanTree(project.root, config(), { racyWindowMs: -Infinity });
    const recorded = statesOf(first).get("src")?.snapshot;
    project.write("src/new.ts", "export const added = true;\n");
    // Until the clock has ticked past the recorded ctime (a tick is a few milliseconds).
    do utimesSync(src, past, past);
    while (statSync(src).ctimeMs === recorded?.ctimeMs);
    expect(statSync(src).mtimeMs).toBe(recorded?.mtimeMs);
    const second = await scanTree(project.root, config(), { previous: statesOf(first), racyWindowMs: -Infinity });
    expect(second.changed.map((directory) => directory.path)).toEqual(["src"]);
    expect(second.changed[0]?.files.map((file) => file.path).sort()).toEqual(["src/a.ts", "src/new.ts"]);
  });

  it("an index from schema 7 keeps its directory states, and the next run adds the snapshots", async () => {
    await services.close();
    services = openProject({ root: project.root, env: project.env, racyWindowMs: -Infinity });
    await index();
    const database = services.paths.database;
    await services.close();
    // Back to schema 7: the states as it stored them, without snapshots.
    const old = new Database(database);
    for (const column of ["files", "directories", "ino", "mtime_ms", "ctime_ms", "recorded_at_ms"])
      old.exec(`ALTER TABLE directory_states DROP COLUMN ${column}`);
    // Schema 9's and 10's tables came after, and schema 11's runs of evicted messages (a mark on each message before).
    for (const table of [
      "agent_instances",
      "quality_observations",
      "degradation_firings",
      "handoff_profiles",
      "task_lists",
      "files_changed",
      "learning_state",
    ])
      old.exec(`DROP TABLE ${table}`);
    old.exec("DROP TABLE session_evictions; ALTER TABLE session_messages ADD COLUMN evicted_by TEXT;");
    // And schema 16's checkpoint fingerprints, schema 13's pipelines, and schema 12's child sessions.
    old.exec("DROP INDEX idx_file_checkpoints_unmasked; ALTER TABLE file_checkpoints DROP COLUMN before_fingerprint;");
    old.exec(
      "DROP TABLE knowledge_items; DROP TABLE inquiries; DROP TABLE routing_decisions; DROP TABLE agent_affinities; DROP TABLE pipeline_stages; DROP TABLE pipelines;",
    );
    old.exec("DROP INDEX idx_sessions_parent;");
    for (const column of ["parent_session_id", "parent_tool_use_id", "agent_id", "agent_type", "kind"])
      old.exec(`ALTER TABLE sessions DROP COLUMN ${column}`);
    // And schema 17's snapshot checksums.
    old.exec(
      "ALTER TABLE fts_documents DROP COLUMN checksum; ALTER TABLE fts_documents DROP COLUMN postings_rows; ALTER TABLE fts_postings DROP COLUMN checksum;",
    );
    // And schema 18's trigram sketches, and schema 20's first walk's states.
    old.exec("DROP TABLE file_sketches; DROP TABLE first_walk_states;");
    old.pragma("user_version = 7");
    old.close();

    services = openProject({ root: project.root, env: project.env, racyWindowMs: -Infinity });
    let report = await services.indexer.checkFreshness();
    expect(report.state).toBe("fresh");
    expect(report.scan).toMatchObject({ changed: [], directories: 5, listed: 5 });
    expect(report.scan.restated.map((directory) => directory.path).sort()).toEqual(["", "docs", "logs", "src", "src/deep"]);
    await index();
    report = await services.indexer.checkFreshness();
    expect(report.state).toBe("fresh");
    expect(report.scan).toMatchObject({ changed: [], restated: [], directories: 5, listed: 0 });
  });
});

describe("schema 5", () => {
  it("files know their directory", () => {
    const db = openDatabase(join(project.root, "scratch.db"));
    const insert = db.prepare("INSERT INTO files (path, size, mtime_ms, status, indexed_at) VALUES (?, 0, 0, 'indexed', 0)");
    for (const path of ["a.ts", "src/a.ts", "src/ab/b.ab", "a/b/c/.env"]) insert.run(path);
    // The migration's expression, applied to rows written before the column existed.
    db.exec("UPDATE files SET directory = rtrim(rtrim(path, replace(path, '/', '')), '/')");
    expect(db.prepare("SELECT path, directory FROM files ORDER BY id").raw().all()).toEqual([
      ["a.ts", ""],
      ["src/a.ts", "src"],
      ["src/ab/b.ab", "src/ab"],
      ["a/b/c/.env", "a/b/c"],
    ]);
    db.close();
  });
});
