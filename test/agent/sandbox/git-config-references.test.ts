import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitConfigEntries, gitConfigReferences } from "../../../src/agent/sandbox/git-config-references.js";
import { gitLocations } from "../../../src/agent/sandbox/git-locations.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

describe("git configuration references", () => {
  it("finds hooks directories, included files and the programs git runs on its own", () => {
    const text = [
      "[core]",
      "\trepositoryformatversion = 0",
      '\thooksPath = ".husky"  # husky installs its hooks here',
      "\tfsmonitor = ./tools/watch --fast",
      "\tpager = less -R",
      '[filter "lfs"]',
      "\tclean = git-lfs clean -- %f",
      '[filter "tidy"]',
      // Git's own quotes go with the parsing; quotes for the shell are escaped.
      '\tsmudge = "\\"./scripts/my filter\\" --in"',
      '\trequired = "./not a program"',
      "\tprocess = scripts/proc",
      "[diff.pdf]",
      "\ttextconv = ./pdf2txt",
      '[merge "ours"]',
      "\tdriver = true",
      '[includeIf "gitdir:~/work/"]',
      "\tpath = ../shared.config",
      "[include]",
      "\tpath = extra\\",
      ".config",
      "[alias]",
      "\tst = !./not-run-by-itself",
      "[CORE]",
      "\tSSHCOMMAND = /opt/ssh-wrapper -v ; comment",
    ].join("\n");
    expect(gitConfigReferences(text)).toEqual({
      hooksPaths: [".husky"],
      includes: ["../shared.config", "extra.config"],
      programs: ["./tools/watch", "less", "git-lfs", "./scripts/my filter", "scripts/proc", "./pdf2txt", "true", "/opt/ssh-wrapper"],
    });
  });

  it("reads what git reads: the same entries as `git config --list` for a tricky file", () => {
    const project = createTempProject();
    try {
      const file = join(project.root, "config");
      writeFileSync(file, '[a "Sub Section"] key = "va;l\\"ue" ; note\n[b.Mixed]\n\tflag\n\tname=x\\ty # c\n[c]\nmulti = one \\\n two\n');
      const fromGit = execFileSync("git", ["config", "--file", file, "--list"], { encoding: "utf8" }).trim().split("\n");
      const ours = gitConfigEntries(readText(file)).map(
        (entry) =>
          `${entry.section}.${entry.subsection !== undefined ? `${entry.subsection}.` : ""}${entry.name}${entry.value === undefined ? "" : `=${entry.value}`}`,
      );
      expect(ours).toEqual(fromGit);
    } finally {
      project.cleanup();
    }
  });
});

describe("git locations", () => {
  let project: TempProject;
  beforeEach(() => {
    project = createTempProject();
  });
  afterEach(() => project.cleanup());

  it("a repository's own .git, config and hooks", () => {
    execFileSync("git", ["init", "-q"], { cwd: project.root });
    const locations = gitLocations(project.root, { HOME: "/nonexistent" });
    expect(locations).toMatchObject({
      entryKind: "directory",
      gitDirectories: [join(project.root, ".git")],
      hooksDirectories: [join(project.root, ".git/hooks")],
      programs: [],
    });
    expect(locations.configFiles).toEqual([join(project.root, ".git/config"), join(project.root, ".git/config.worktree")]);
  });

  it("a relative core.hooksPath in the user's own configuration lands in the project", () => {
    execFileSync("git", ["init", "-q"], { cwd: project.root });
    const userConfig = join(project.sylkHome, "gitconfig");
    project.write("../home/gitconfig", "[core]\n\thooksPath = .githooks\n");
    expect(gitLocations(project.root, { HOME: "/nonexistent" }, [userConfig]).hooksDirectories).toEqual([join(project.root, ".githooks")]);
  });
});

function readText(path: string): string {
  return execFileSync("cat", [path], { encoding: "utf8" });
}
