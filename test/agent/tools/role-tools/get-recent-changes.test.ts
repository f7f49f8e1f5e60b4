import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { createGetRecentChangesTool } from "../../../../src/agent/tools/role-tools/get-recent-changes.js";
import { runGit } from "../../../../src/agent/tools/role-tools/read-only-git.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import type { FileChangeRecord } from "../../../../src/store/handoff-records.js";
import { estimateTokens } from "../../../../src/tokens/estimate-tokens.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";
import { RepositoryIntegrity } from "../../../../src/agent/sandbox/repository-integrity.js";

/** Git is never refused here: no command this file runs changes `.git` behind Sylk's back. */
const integrity = new RepositoryIntegrity(process.env);

let project: TempProject;

function git(args: string[], date = "2026-01-01T10:00:00Z"): string {
  return execFileSync("git", ["-c", "commit.gpgsign=false", ...args], {
    cwd: project.root,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
}

function lines(prefix: string, count: number): string {
  return `${Array.from({ length: count }, (_, index) => `${prefix} ${index}`).join("\n")}\n`;
}

/** Three commits: a.ts and b.ts, a fix to a.ts, then 100 more lines in b.ts. */
function makeRepository(): void {
  git(["init", "-q"]);
  git(["config", "user.name", "Ada Lovelace"]);
  git(["config", "user.email", "ada@example.com"]);
  project.write("src/a.ts", "export const header = 'old';\nexport const body = 1;\n");
  project.write("src/b.ts", lines("line", 3));
  git(["add", "."]);
  git(["commit", "-q", "-m", "Add a and b"], "2026-01-01T10:00:00Z");
  project.write("src/a.ts", "export const header = 'fixed';\nexport const body = 1;\n");
  git(["commit", "-q", "-am", "Fix the header"], "2026-01-02T10:00:00Z");
  project.write("src/b.ts", lines("line", 103));
  git(["commit", "-q", "-am", "Grow b"], "2026-01-03T10:00:00Z");
}

function run(input: Record<string, unknown>, sessionChanges: FileChangeRecord[] = [], availableTokens = 100_000) {
  const tool = createGetRecentChangesTool({
    sessionChanges: () => sessionChanges,
    availableTokens: () => availableTokens,
    gitGate: integrity,
  });
  const registry = new ToolRegistry([tool], new PermissionPolicy("bypass"));
  return registry.run(
    { id: "1", name: "get_recent_changes", input },
    { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
  );
}

beforeEach(() => {
  project = createTempProject();
});

afterEach(() => {
  project.cleanup();
});

describe("get_recent_changes", () => {
  it("lists commits newest first with numstat, the session's changes and the uncommitted ones", async () => {
    makeRepository();
    project.write("src/a.ts", "export const header = 'working';\nexport const body = 1;\n");
    const result = await run({}, [{ path: "src/a.ts", action: "modify", linesAdded: 1, linesRemoved: 1 }]);
    expect(result.isError).toBeFalsy();
    const output = result.output;
    expect(output.split("\n")[0]).toMatch(/^source: git log \+ session changes · 5 results · tokens: \d+ · truncated: false$/);
    const grow = output.indexOf("2026-01-03 10:00 · Ada Lovelace · Grow b");
    const fix = output.indexOf("2026-01-02 10:00 · Ada Lovelace · Fix the header");
    const add = output.indexOf("2026-01-01 10:00 · Ada Lovelace · Add a and b");
    expect(grow).toBeGreaterThan(0);
    expect(fix).toBeGreaterThan(grow);
    expect(add).toBeGreaterThan(fix);
    expect(output).toContain("    +100 −0 src/b.ts");
    expect(output).toContain("    +1 −1 src/a.ts");
    expect(output).toMatch(/- [0-9a-f]{10} 2026-01-03/);
    expect(output).toContain("## This session's changes under .\n- modify src/a.ts (+1 −1)");
    expect(output).toContain("## Uncommitted changes under . (working tree against HEAD)\n- modified src/a.ts (+1 −1)");
    expect(output).not.toContain("```diff");
    expect(output).not.toContain("src/b.ts (+");
  });

  it("narrows to a path, honours the limit, and clips each diff to 60 lines", async () => {
    makeRepository();
    project.write("src/a.ts", "export const header = 'working';\nexport const body = 1;\n");
    const a = await run({ path: "src/a.ts", include_diffs: true });
    expect(a.output).toContain("Fix the header");
    expect(a.output).not.toContain("Grow b");
    expect(a.output).toContain("-export const header = 'old';\n+export const header = 'fixed';");
    expect(a.output).toContain("-export const header = 'fixed';\n+export const header = 'working';");

    const b = await run({ path: "src/b.ts", limit: 1, include_diffs: true });
    expect(b.output).toContain("Grow b");
    expect(b.output).not.toContain("Add a and b");
    expect(b.output).toMatch(/… \d+ more diff lines \(clipped at 60; see git show [0-9a-f]{10}\)\./);
    expect(b.output).toContain("+line 50");
    expect(b.output).not.toContain("+line 100");
    expect(b.output).toContain("## Uncommitted changes under src/b.ts (working tree against HEAD)\n(none)");
  });

  it("leaves out the diff of a committed secrets file", async () => {
    makeRepository();
    project.write(".env", "API_TOKEN=plain-value-123\n");
    git(["add", ".env"]);
    git(["commit", "-q", "-m", "Add env"], "2026-01-04T10:00:00Z");
    const result = await run({ include_diffs: true, limit: 1 });
    expect(result.output).toContain("Add env");
    expect(result.output).toContain("(diff of secrets file .env not shown)");
    expect(result.output).not.toContain("plain-value-123");
  });

  it("keeps within max_tokens and says it was cut", async () => {
    makeRepository();
    const result = await run({ include_diffs: true, max_tokens: 300 });
    expect(result.output.split("\n")[0]).toContain("truncated: true");
    expect(estimateTokens(result.output)).toBeLessThanOrEqual(300);
    const cramped = await run({ include_diffs: true }, [], 120);
    expect(estimateTokens(cramped.output)).toBeLessThanOrEqual(120);
  });

  it("runs neither the repository's fsmonitor nor its clean filters", async () => {
    makeRepository();
    const monitorMarker = join(project.root, "..", "fsmonitor-ran");
    const filterMarker = join(project.root, "..", "filter-ran");
    const hook = join(project.root, ".git", "fsmonitor-hook.sh");
    writeFileSync(hook, `#!/bin/sh\ntouch '${monitorMarker}'\n`);
    chmodSync(hook, 0o755);
    git(["config", "core.fsmonitor", hook]);
    git(["config", "filter.evil.clean", `touch '${filterMarker}'; cat`]);
    writeFileSync(join(project.root, ".git", "info", "attributes"), "* filter=evil\n");
    project.write("src/a.ts", "export const header = 'dirty';\nexport const body = 1;\n");

    const result = await run({ include_diffs: true });
    expect(result.output).toContain("- modified src/a.ts (+1 −1)");
    expect(existsSync(monitorMarker)).toBe(false);
    expect(existsSync(filterMarker)).toBe(false);

    // The guard itself: even a status through runGit leaves the fsmonitor alone...
    await runGit(project.root, ["status", "--porcelain"], { gate: integrity });
    expect(existsSync(monitorMarker)).toBe(false);
    // ...while a plain status runs it (the fixture does what it claims).
    git(["status", "--porcelain"]);
    expect(existsSync(monitorMarker)).toBe(true);
  });

  it("never fetches: a repository posing as a partial clone does not get its promisor remote's upload-pack run", async () => {
    makeRepository();
    const marker = join(project.root, "..", "upload-pack-ran");
    const blob = git(["rev-parse", "HEAD:src/a.ts"]).trim();
    rmSync(join(project.root, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    git(["config", "core.repositoryformatversion", "1"]);
    git(["config", "extensions.partialClone", "origin"]);
    git(["config", "remote.origin.url", project.root]);
    git(["config", "remote.origin.promisor", "true"]);
    git(["config", "remote.origin.uploadpack", `touch '${marker}'; git-upload-pack`]);

    const result = await run({ include_diffs: true });
    expect(result.output.split("\n")[0]).toMatch(/^source: git log/);
    expect(existsSync(marker)).toBe(false);
    // The fixture does what it claims: git's own lazy fetch runs the repository's shell line.
    try {
      git(["show", `HEAD:src/a.ts`]);
    } catch {
      // the fetch itself fails (the remote has no such object either); the line ran before it did
    }
    expect(existsSync(marker)).toBe(true);
  });

  it("without git, says so and lists the session's own changes", async () => {
    project.write("notes.md", "hello\n");
    const result = await run({ path: "." }, [
      { path: "notes.md", action: "create", linesAdded: 1, linesRemoved: 0 },
      { path: "/elsewhere/x.md", action: "modify", linesAdded: 1, linesRemoved: 0 },
    ]);
    expect(result.isError).toBeFalsy();
    expect(result.output.split("\n")[0]).toMatch(/^source: session changes \(no git\) · 1 results · /);
    expect(result.output).toContain("The project is not a git repository: there is no commit history to show.");
    expect(result.output).toContain("- create notes.md (+1 −0)");
    expect(result.output).not.toContain("elsewhere");
    expect(result.output).not.toContain("## Uncommitted");
  });

  it("says when the repository has no commits, and lists files the session created that HEAD lacks", async () => {
    git(["init", "-q"]);
    const empty = await run({});
    expect(empty.output).toContain("This git repository has no commits yet");

    makeRepository2();
    project.write("src/new.ts", "export const fresh = true;\n");
    const result = await run({ path: "src" }, [{ path: "src/new.ts", action: "create", linesAdded: 1, linesRemoved: 0 }]);
    expect(result.output).toContain("- new src/new.ts (not in HEAD; created in this session)");
  });

  it("does not read through a tracked directory that became a link out of the project", async () => {
    makeRepository();
    const outside = join(project.root, "..", "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "a.ts"), "export const header = 'from outside the project';\n");
    project.remove("src");
    symlinkSync(outside, join(project.root, "src"));
    const result = await run({ include_diffs: true });
    expect(result.output).toContain("- type changed src/a.ts");
    expect(result.output).not.toContain("from outside the project");
  });

  it("refuses a path outside the project", async () => {
    makeRepository();
    const result = await run({ path: "../" });
    expect(result.isError).toBe(true);
    expect(result.output).toContain("outside the project");
  });
});

/** A one-commit history in the repository `git init` already made. */
function makeRepository2(): void {
  git(["config", "user.name", "Ada Lovelace"]);
  git(["config", "user.email", "ada@example.com"]);
  project.write("src/a.ts", "export const a = 1;\n");
  git(["add", "."]);
  git(["commit", "-q", "-m", "First"]);
}
