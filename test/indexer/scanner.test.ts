import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { displayName } from "../../src/indexer/directory-listing.js";
import type { ChangedDirectory } from "../../src/indexer/scan-results.js";
import { countFilesToIndex, scanProject, scanTree } from "../../src/indexer/scanner.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { collectGarbage } from "../helpers/garbage-collection.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject();
});
afterEach(() => project.cleanup());

const scannedPaths = async (overrides: Partial<ReturnType<typeof defaultConfig>["index"]> = {}) => {
  const result = await scanProject(project.root, { ...defaultConfig().index, ...overrides });
  return { files: result.files.map((file) => file.path).sort(), skipped: result.skipped.map((file) => [file.path, file.reason]).sort() };
};

describe("scanProject", () => {
  it("skips the default excluded directories at any depth and the excluded patterns", async () => {
    for (const path of [
      "src/a.ts",
      "node_modules/x/i.js",
      "packages/p/node_modules/y/i.js",
      ".git/HEAD",
      "dist/out.js",
      "app.min.js",
      "yarn.lock",
      "go.sum",
      "x.map",
      "src/keep.js",
    ]) {
      project.write(path, "x");
    }
    expect((await scannedPaths()).files).toEqual(["src/a.ts", "src/keep.js"]);
  });

  it("honours nested .gitignore files, negations, .sylkignore and .git/info/exclude", async () => {
    project.write(".gitignore", "*.log\nout/\n");
    project.write("pkg/.gitignore", "generated.ts\n!important.log\n");
    project.write(".sylkignore", "secret-plans/\n");
    project.write(".git/info/exclude", "local-only.txt\n");
    for (const path of [
      "a.log",
      "out/x.ts",
      "pkg/generated.ts",
      "pkg/important.log",
      "pkg/keep.ts",
      "generated.ts",
      "secret-plans/p.md",
      "local-only.txt",
      "readme.md",
    ]) {
      project.write(path, "x");
    }
    expect((await scannedPaths()).files).toEqual([
      ".gitignore",
      ".sylkignore",
      "generated.ts",
      "pkg/.gitignore",
      "pkg/important.log",
      "pkg/keep.ts",
      "readme.md",
    ]);
  });

  it("indexes a git worktree or submodule, where .git is a file naming the real git directory", async () => {
    project.write(".git", "gitdir: /elsewhere/.git/worktrees/feature\n");
    project.write(".gitignore", "*.log\n");
    project.write("src/a.ts", "x");
    project.write("debug.log", "x");
    expect((await scannedPaths()).files).toEqual([".gitignore", "src/a.ts"]);
  });

  it("can disregard .gitignore (never .sylkignore) and reports oversized and secret files as skipped", async () => {
    project.write(".gitignore", "ignored.ts\n");
    project.write("ignored.ts", "x");
    project.write(".sylkignore", "drafts/\n");
    project.write("drafts/d.md", "x");
    project.write("big.txt", "x".repeat(2000));
    project.write(".env", "A=1");
    project.write(".env.local", "A=1");
    project.write("config/credentials.json", "{}");
    project.write("certs/server.pem", "x");
    project.write("keys/id_ed25519", "x");
    const result = await scannedPaths({ respectGitignore: false, maxFileSize: 1000 });
    expect(result.files).toEqual([".gitignore", ".sylkignore", "ignored.ts"]);
    expect(result.skipped).toEqual([
      [".env", "secret"],
      [".env.local", "secret"],
      ["big.txt", "too-large"],
      ["certs/server.pem", "secret"],
      ["config/credentials.json", "secret"],
      ["keys/id_ed25519", "secret"],
    ]);
  });

  it("reports FIFOs and names that are not UTF-8 as skipped, with the reason, unless ignored; and a later walk agrees", async () => {
    project.write("src/a.ts", "x");
    project.write(".gitignore", "*.pipe\n");
    execFileSync("mkfifo", [join(project.root, "src/notes.md"), join(project.root, "ignored.pipe")]);
    const bytes = (...parts: Array<string | number[]>) =>
      Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))));
    writeFileSync(bytes(project.root, "/caf", [0xe9], ".txt"), "latin-1 name\n");
    mkdirSync(bytes(project.root, "/dir", [0xff]));
    writeFileSync(bytes(project.root, "/dir", [0xff], "/inside.ts"), "x");
    expect(await scannedPaths()).toEqual({
      files: [".gitignore", "src/a.ts"],
      skipped: [
        ["caf\\xe9.txt", "name-not-utf8"],
        ["dir\\xff", "name-not-utf8"],
        ["src/notes.md", "fifo"],
      ],
    });
    const first = await scanTree(project.root, defaultConfig().index);
    const previous = new Map(first.changed.map((directory) => [directory.path, directory.state]));
    const second = await scanTree(project.root, defaultConfig().index, { previous, racyWindowMs: Number.NEGATIVE_INFINITY });
    expect(second.changed).toEqual([]);
  });

  it("shows a name's bytes that are not UTF-8, and control characters, as \\xNN", () => {
    expect(displayName(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]))).toBe("caf\\xe9.txt");
    expect(displayName(Buffer.from("café\u001b[31m", "utf8"))).toBe("café\\x1b[31m");
    expect(displayName(Buffer.from([0xe2, 0x82]))).toBe("\\xe2\\x82");
  });

  it("does not follow symbolic links, so loops end", async () => {
    project.write("src/a.ts", "x");
    symlinkSync(join(project.root, "src"), join(project.root, "src", "self"));
    symlinkSync("/", join(project.root, "root-link"));
    symlinkSync(join(project.root, "src/a.ts"), join(project.root, "alias.ts"));
    expect((await scannedPaths()).files).toEqual(["src/a.ts"]);
  });

  it("prioritises priority paths, entry points and recent files", async () => {
    project.write("src/a.ts", "x");
    project.write("notes.txt", "x");
    const result = await scanProject(project.root, defaultConfig().index);
    const priorities = Object.fromEntries(result.files.map((file) => [file.path, file.priority]));
    expect(priorities).toEqual({ "src/a.ts": 100 + 49 + 30, "notes.txt": 100 });
  });

  it("leaves the working directory as it found it, also while it yields to other code", async () => {
    for (let index = 0; index < 30; index++) project.write(`d${index}/f.ts`, "x");
    const before = process.cwd();
    const seen = new Set<string>();
    const watcher = setInterval(() => seen.add(process.cwd()), 0);
    try {
      const scan = await scanTree(project.root, defaultConfig().index, { sliceMs: 0 });
      expect(scan.files).toBe(30);
    } finally {
      clearInterval(watcher);
    }
    expect(process.cwd()).toBe(before);
    expect([...seen]).toEqual([before]);
  });

  it("stops at its next yield once its signal aborts, leaving the working directory as it was", async () => {
    for (let index = 0; index < 200; index++) project.write(`d${index}/f.ts`, "x");
    const before = process.cwd();
    await expect(scanProject(project.root, defaultConfig().index, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const visited: number[] = [];
    await expect(
      scanTree(project.root, defaultConfig().index, { sliceMs: 0, signal: controller.signal }).then((scan) => visited.push(scan.files)),
    ).rejects.toThrow(/abort/i);
    expect(visited).toEqual([]);
    expect(process.cwd()).toBe(before);
  });
});

describe("a walk that stops after enough files", () => {
  it("stops once its directories hold more files to index than the limit, and says it saw only part of the tree", async () => {
    for (let directory = 0; directory < 10; directory++) {
      for (let file = 0; file < 4; file++) project.write(`d${directory}/f${file}.ts`, "x\n");
    }
    // Ruled out by name: not files to index, so not counted toward the limit.
    for (let file = 0; file < 8; file++) project.write(`.env.${file}`, "SECRET=1\n");
    const config = defaultConfig().index;
    const partial = await scanTree(project.root, config, { stopAfterFiles: 6 });
    expect(partial.partial).toBe(true);
    expect(partial.changed.flatMap((directory) => directory.files)).toHaveLength(8);
    expect(await countFilesToIndex(project.root, config, 6)).toBe(8);
    const whole = await scanTree(project.root, config, { stopAfterFiles: 40 });
    expect(whole.partial).toBe(false);
    expect(await countFilesToIndex(project.root, config, 40)).toBe(40);
  });
});

describe("scanTree handing each changed directory over", () => {
  it("gives every changed directory to the caller as it is walked, in walk order, and keeps none of them", async () => {
    for (const path of ["a.ts", "src/b.ts", "src/b0.ts", "src/b/c.ts", "docs/x.md", ".env", "big.bin"]) project.write(path, "x");
    const config = defaultConfig().index;
    const nowMs = Date.now();
    // What two walks may differ in: when each began, which its snapshots record.
    const comparable = ({ path, files, skipped, state }: ChangedDirectory) => ({
      path,
      files: [...files],
      skipped: [...skipped],
      state: { ...state, snapshot: state.snapshot && { ...state.snapshot, recordedAtMs: 0 } },
    });
    const whole = await scanTree(project.root, config, { nowMs });
    const handed: unknown[] = [];
    const kept: Array<WeakRef<object>> = [];
    const streamed = await scanTree(project.root, config, {
      nowMs,
      onChangedDirectory: (directory) => {
        handed.push(comparable(directory));
        kept.push(new WeakRef(directory), new WeakRef(directory.files));
      },
    });

    expect(handed).toEqual(whole.changed.map(comparable));
    expect(streamed.changed).toEqual([]);
    expect({ ...streamed, changed: whole.changed }).toEqual(whole);
    await collectGarbage();
    expect(kept.filter((reference) => reference.deref() !== undefined)).toEqual([]);
  });
});
