import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { unsandboxed } from "../../../src/agent/sandbox/command-sandbox.js";
import { RepositoryIntegrity } from "../../../src/agent/sandbox/repository-integrity.js";
import { CommandProcesses } from "../../../src/agent/tools/command-processes.js";
import { createGetRecentChangesTool } from "../../../src/agent/tools/role-tools/get-recent-changes.js";
import { runGit } from "../../../src/agent/tools/role-tools/read-only-git.js";
import { createRunCommandTool } from "../../../src/agent/tools/run-command.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { CommandChangeTracker } from "../../../src/handoff/session/command-changes.js";
import type { FileChangeRecord } from "../../../src/store/handoff-records.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
let integrity: RepositoryIntegrity;
const reported: FileChangeRecord[][] = [];

/**
 * A session's tools as they share one integrity check: `run_command` with
 * the sandbox off (what an approved unsandboxed command or `--no-sandbox`
 * runs), wrapped by the handoff's command tracking (which runs `git
 * status`), and `get_recent_changes` (which runs `git log`).
 */
function session() {
  const commands = createRunCommandTool({
    sandbox: unsandboxed({ state: "off" }),
    networkFor: () => false,
    integrity,
    processes: new CommandProcesses(),
  });
  const tracked = new CommandChangeTracker(project.root, integrity).wrap(commands, (changes) => reported.push(changes));
  const history = createGetRecentChangesTool({ sessionChanges: () => [], availableTokens: () => 100_000, gitGate: integrity });
  const registry = new ToolRegistry([tracked, history], new PermissionPolicy("bypass"));
  const context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
  return {
    run: (command: string) => registry.run({ id: "1", name: "run_command", input: { command } }, context),
    history: () => registry.run({ id: "2", name: "get_recent_changes", input: {} }, context),
  };
}

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: project.root, encoding: "utf8" });

beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  integrity = new RepositoryIntegrity(project.env);
  reported.length = 0;
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "start");
});
afterEach(() => project.cleanup());

describe("the integrity check after each command", () => {
  it("says when a command replaced .git, and Sylk's own git then refuses for the rest of the session", async () => {
    const { run, history } = session();
    expect((await history()).isError).toBeFalsy();
    const replaced = await run(
      `mv .git .git-old && mkdir .git && cp -r .git-old/objects .git-old/refs .git-old/HEAD .git/ && printf '[core]\\n\\tfsmonitor = "touch ../pwned"\\n' > .git/config && echo b > src/b.ts`,
    );
    expect(replaced.isError, replaced.output).toBe(false);
    expect(replaced.output).toMatch(/Warning: This command replaced \.git/);
    expect(replaced.output).toContain("Sylk will run no git of its own in this project for the rest of the session.");
    expect(replaced.display).toMatch(/warning: replaced \.git/);

    const refused = await history();
    expect(refused.isError).toBe(true);
    expect(refused.output).toMatch(/^Sylk runs no git in this project for the rest of this session: a command replaced \.git/);
    await expect(runGit(project.root, ["log"], { gate: integrity })).rejects.toThrow(/Sylk runs no git in this project/);
    // Command tracking runs `git status` around commands: not any more, not even after the command that replaced .git.
    expect(reported).toEqual([]);
    await run("echo c > src/c.ts");
    expect(reported).toEqual([]);
    expect(existsSync(join(project.root, "..", "pwned"))).toBe(false);
  });

  it("also when a command removes .git, creates one, or points a .git file elsewhere", async () => {
    for (const [setup, attack, phrase] of [
      ["true", "rm -rf .git", "removed .git"],
      ["rm -rf .git", "git init -q", "created .git"],
      ["mv .git ../real-git && printf 'gitdir: ../real-git\\n' > .git", "printf 'gitdir: /elsewhere\\n' > .git", "replaced .git"],
    ] as const) {
      integrity = new RepositoryIntegrity(project.env);
      execFileSync("bash", ["-c", setup], { cwd: project.root });
      const result = await session().run(attack);
      expect(result.output, attack).toContain(`Warning: This command ${phrase}`);
      expect(integrity.gitRefusal(project.root), attack).toBeDefined();
    }
  });

  it("says when a command changed git's configuration or Sylk's settings, and git goes on", async () => {
    const { run, history } = session();
    const config = await run("git config core.editor vi && echo '{}' > .sylkrc && mkdir -p .sylk/agents && echo x > .sylk/agents/a.md");
    expect(config.output).toMatch(/Warning: This command changed \.git\/config, created \.sylkrc, created \.sylk\./);
    expect(config.output).not.toContain("Sylk will run no git");
    expect((await history()).isError).toBeFalsy();
    expect(integrity.gitChanges(project.root)).toBe(1);
    // Nothing changed: nothing said.
    const quiet = await run("echo d > src/d.ts && git status --porcelain");
    expect(quiet.output).not.toContain("Warning:");
  });

  it("a command that gives git a clean filter stops the git status of command tracking, which could run it", async () => {
    const { run } = session();
    await run("echo b > src/b.ts");
    expect(reported.flat().map((change) => change.path)).toEqual(["src/b.ts"]);
    await run(`git config filter.evil.clean 'touch ../filter-ran; cat' && echo '* filter=evil' > .gitattributes`);
    reported.length = 0;
    await run("echo c > src/c.ts");
    expect(reported).toEqual([]);
    expect(existsSync(join(project.root, "..", "filter-ran"))).toBe(false);
  });
});
