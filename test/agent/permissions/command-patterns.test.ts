import { beforeAll, describe, expect, it } from "vitest";
import { parseCommandPattern, patternCovers, patternMayMatch } from "../../../src/agent/permissions/command-patterns.js";
import { analyseShellCommand } from "../../../src/agent/permissions/shell-commands.js";
import type { SimpleCommand } from "../../../src/agent/permissions/simple-command.js";
import { loadBashParser, type ShellSyntaxParser } from "../../../src/parsing/bash-parser.js";

let parser: ShellSyntaxParser;
beforeAll(async () => {
  parser = await loadBashParser();
});

/** The one simple command a command line holds. */
function simple(command: string): SimpleCommand {
  const analysis = analyseShellCommand(command, parser);
  expect(analysis.commands, command).toHaveLength(1);
  return analysis.commands[0] as SimpleCommand;
}

const covers = (pattern: string, command: string) => patternCovers(parseCommandPattern(pattern), simple(command));
const mayMatch = (pattern: string, command: string) => patternMayMatch(parseCommandPattern(pattern), simple(command));

describe("an allow rule's command pattern", () => {
  it("means 'these words, then anything' with a trailing *, in each of its spellings", () => {
    for (const pattern of ["npm test*", "npm test *", "npm test:*"]) {
      expect(covers(pattern, "npm test"), pattern).toBe(true);
      expect(covers(pattern, "npm test -- --watch"), pattern).toBe(true);
      expect(covers(pattern, "npm testx"), pattern).toBe(false);
      expect(covers(pattern, "npm tes"), pattern).toBe(false);
    }
  });

  it("matches exactly without a trailing *", () => {
    expect(covers("cargo fetch", "cargo fetch")).toBe(true);
    expect(covers("cargo fetch", "cargo fetch --locked")).toBe(false);
  });

  it("globs within a word where the * is inside it or follows punctuation", () => {
    expect(covers("git log --format=*", "git log --format=%H -3")).toBe(true);
    expect(covers("make build-*", "make build-linux")).toBe(true);
    expect(covers("make build-*", "make test")).toBe(false);
    expect(covers("ls *.md", "ls README.md")).toBe(true);
  });

  it("compares words as bash passes them, and never a word only the run knows", () => {
    expect(covers("npm test*", "'npm' \"test\"")).toBe(true);
    expect(covers("npm test*", "npm $TARGET")).toBe(false);
    expect(covers("npm test*", "npm test $EXTRA")).toBe(true);
    expect(covers("git status*", "g?t status")).toBe(false);
  });

  it("does not cover leading assignments it does not name, nor another program of the same name", () => {
    expect(covers("npm test*", "LD_PRELOAD=x npm test")).toBe(false);
    expect(covers("NODE_ENV=test npm test*", "NODE_ENV=test npm test")).toBe(true);
    expect(covers("npm test*", "./npm test")).toBe(false);
  });
});

describe("a deny rule's command pattern", () => {
  it("matches with or without assignments, by base name, and past wrappers", () => {
    expect(mayMatch("rm *", "X=1 rm x")).toBe(true);
    expect(mayMatch("rm *", "/bin/rm -rf x")).toBe(true);
    expect(mayMatch("rm *", "\\rm x")).toBe(true);
    expect(mayMatch("git push*", "git status")).toBe(false);
  });

  it("matches a word only the run knows as any word, or any number of words when the shell may split it", () => {
    expect(mayMatch("rm *", "$CMD -rf x")).toBe(true);
    expect(mayMatch("git push*", "git $SUB origin")).toBe(true);
    expect(mayMatch("git push*", "$GIT origin")).toBe(true);
    expect(mayMatch("git push*", '"$GIT" origin')).toBe(false);
    expect(mayMatch("rm *", "r? -rf x")).toBe(true);
  });

  it("also reads a trailing * after letters as a glob: `npm install evil*` matches evil-package", () => {
    expect(mayMatch("npm install evil*", "npm install evil-package")).toBe(true);
    expect(mayMatch("npm install evil*", "npm install good")).toBe(false);
  });
});
