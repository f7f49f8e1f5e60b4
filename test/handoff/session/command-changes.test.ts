import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CommandChangeTracker } from "../../../src/handoff/session/command-changes.js";
import { defineTool, type ToolDefinition } from "../../../src/agent/tools/tool.js";
import type { FileChangeRecord } from "../../../src/store/handoff-records.js";
import { RepositoryIntegrity } from "../../../src/agent/sandbox/repository-integrity.js";

/** Git is never refused here: no command this file runs changes `.git` behind Sylk's back. */
const integrity = new RepositoryIntegrity(process.env);

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "sylk-command-changes-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function git(...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: root, stdio: "ignore" });
}

/** A stand-in for run_command whose "command" is a function over the project. */
function commandTool(): ToolDefinition {
  return defineTool({
    name: "run_command",
    description: "test",
    schema: z.strictObject({ step: z.string() }),
    kind: "execute",
    targets: () => ({}),
    execute: async (input: { step: string }) => {
      steps[input.step]?.();
      return { output: "ok" };
    },
  });
}
const steps: Record<string, () => void> = {};
const context = { root: "", extraDirectories: [], signal: new AbortController().signal };

describe("CommandChangeTracker", () => {
  it("reports the files a command created, modified or deleted, and not those already dirty and left alone", async () => {
    writeFileSync(join(root, "kept.ts"), "a\n");
    writeFileSync(join(root, "edited.ts"), "b\n");
    writeFileSync(join(root, "gone.ts"), "c\n");
    writeFileSync(join(root, "dirty-before.ts"), "d\n");
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "start");
    writeFileSync(join(root, "dirty-before.ts"), "d, changed by the user\n");
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, "dirty-before.ts"), past, past);

    const reported: FileChangeRecord[][] = [];
    const tool = new CommandChangeTracker(root, integrity).wrap(commandTool(), (changes) => reported.push(changes));
    steps.work = () => {
      writeFileSync(join(root, "edited.ts"), "b2\n");
      writeFileSync(join(root, "new.ts"), "e\n");
      unlinkSync(join(root, "gone.ts"));
    };
    await tool.execute({ step: "work" }, { ...context, root });
    const byPath = Object.fromEntries((reported[0] ?? []).map((change) => [change.path, change.action]));
    expect(byPath).toEqual({ "edited.ts": "modify", "new.ts": "create", "gone.ts": "delete" });

    // Changing an already dirty file again is a change too; a command that changes nothing reports nothing.
    steps.again = () => writeFileSync(join(root, "dirty-before.ts"), "d, changed again\n");
    await tool.execute({ step: "again" }, { ...context, root });
    expect(reported[1]?.map((change) => [change.path, change.action])).toEqual([["dirty-before.ts", "modify"]]);
    steps.nothing = () => undefined;
    await tool.execute({ step: "nothing" }, { ...context, root });
    expect(reported).toHaveLength(2);
  });

  it("tracks nothing outside a git repository (and the command still runs)", async () => {
    const reported: FileChangeRecord[][] = [];
    const tool = new CommandChangeTracker(root, integrity).wrap(commandTool(), (changes) => reported.push(changes));
    let ran = false;
    steps.outside = () => {
      ran = true;
      writeFileSync(join(root, "x.ts"), "x\n");
    };
    expect(await tool.execute({ step: "outside" }, { ...context, root })).toEqual({ output: "ok" });
    expect(ran).toBe(true);
    expect(reported).toEqual([]);
  });

  it("never runs git status where the project's own git config names an fsmonitor hook or a filter (an untrusted repository)", async () => {
    for (const [key, value] of [
      ["core.fsmonitor", join(root, "hook.sh")],
      ["filter.evil.clean", `sh ${join(root, "hook.sh")}`],
    ] as const) {
      rmSync(join(root, ".git"), { recursive: true, force: true });
      writeFileSync(join(root, "hook.sh"), `#!/bin/sh\ntouch ${join(root, "ran")}\ncat\n`, { mode: 0o755 });
      writeFileSync(join(root, ".gitattributes"), "*.ts filter=evil\n");
      writeFileSync(join(root, "a.ts"), "a\n");
      git("init", "-q");
      git("add", "a.ts", "hook.sh");
      git("commit", "-qm", "start");
      git("config", key, value);
      rmSync(join(root, "ran"), { force: true });
      const reported: FileChangeRecord[][] = [];
      const tool = new CommandChangeTracker(root, integrity).wrap(commandTool(), (changes) => reported.push(changes));
      steps.touch = () => writeFileSync(join(root, "a.ts"), "a2\n");
      await tool.execute({ step: "touch" }, { ...context, root });
      expect(reported).toEqual([]); // not tracked
      expect(existsSync(join(root, "ran"))).toBe(false);
    }
  });
  it("leaves a nested repository's filters alone, and judges the repository's own config from a folder inside it", async () => {
    const marker = join(root, "..", `${root.split("/").pop()}-nested-filter-ran`);
    const sub = join(root, "sub");
    mkdirSync(sub);
    writeFileSync(join(sub, "a.txt"), "hello\n");
    writeFileSync(join(sub, ".gitattributes"), "* filter=evil\n");
    writeFileSync(join(root, "top.txt"), "top\n");
    execFileSync("git", ["init", "-q"], { cwd: sub, stdio: "ignore" });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "add", "."], { cwd: sub, stdio: "ignore" });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sub"], { cwd: sub, stdio: "ignore" });
    execFileSync("git", ["config", "filter.evil.clean", `sh -c 'touch ${marker}; cat'`], { cwd: sub, stdio: "ignore" });
    git("init", "-q");
    git("add", "top.txt", "sub");
    git("commit", "-qm", "top");
    // What an extracted archive looks like to git: the nested file's times no longer match its index.
    const past = new Date(2001, 1, 1);
    utimesSync(join(sub, "a.txt"), past, past);
    try {
      const reported: FileChangeRecord[][] = [];
      const tool = new CommandChangeTracker(root, integrity).wrap(commandTool(), (changes) => reported.push(changes));
      steps.create = () => writeFileSync(join(root, "made.txt"), "m\n");
      await tool.execute({ step: "create" }, { ...context, root });
      expect(reported[0]?.map((change) => [change.path, change.action])).toEqual([["made.txt", "create"]]);
      expect(existsSync(marker)).toBe(false);

      // Started in a folder below the top, with the filter in the top repository's config: not tracked.
      git("config", "filter.evil.clean", `sh -c 'touch ${marker}; cat'`);
      writeFileSync(join(root, ".gitattributes"), "* filter=evil\n");
      mkdirSync(join(root, "pkg"));
      writeFileSync(join(root, "pkg", "b.txt"), "b\n");
      const inner = new CommandChangeTracker(join(root, "pkg"), integrity).wrap(commandTool(), (changes) => reported.push(changes));
      steps.edit = () => writeFileSync(join(root, "pkg", "b.txt"), "b2\n");
      await inner.execute({ step: "edit" }, { ...context, root: join(root, "pkg") });
      expect(reported).toHaveLength(1);
      expect(existsSync(marker)).toBe(false);

      // The fixture does what it claims: a plain status runs the nested repository's filter.
      git("config", "--unset", "filter.evil.clean");
      execFileSync("git", ["status", "--porcelain"], { cwd: root, stdio: "ignore" });
      expect(existsSync(marker)).toBe(true);
    } finally {
      rmSync(marker, { force: true });
    }
  });
});
