import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeSandbox, keptReadable } from "../../../src/agent/sandbox/command-sandbox.js";
import { readDenial } from "../../../src/agent/sandbox/read-denial.js";
import { bubblewrap, directoryOutsideTmp, sandboxedRegistry } from "../../helpers/sandboxed-commands.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

if (!bubblewrap.ok) console.warn(`Read denial tests skipped: ${bubblewrap.reason}.`);

let project: TempProject;
/** A home directory outside /tmp: the sandbox's /tmp is its own, so a home under it would be out of sight anyway. */
let home: string;
let env: NodeJS.ProcessEnv;

function write(path: string, content: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
}

beforeEach(() => {
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  home = directoryOutsideTmp("sylk-home-");
  env = { ...process.env, HOME: home, SYLK_HOME: join(home, ".sylk") };
  write(join(home, ".ssh/id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n");
  write(join(home, ".aws/credentials"), "[default]\naws_secret_access_key = secret\n");
  write(join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=secret\n");
  write(join(home, ".sylkrc"), '{"mcpServers":{"gh":{"command":"gh-mcp","env":{"GITHUB_TOKEN":"secret"}}}}\n');
  write(join(home, ".bash_history"), "export ANTHROPIC_API_KEY=secret\n");
  write(join(home, ".sylk/trusted-folders.json"), '{"folders":{}}\n');
  write(join(home, ".sylk/projects/0123/vector.db"), "another project's conversations\n");
  write(join(home, "notes/todo.txt"), "buy milk\n");
  write(join(home, "private/diary.txt"), "dear diary\n");
});
afterEach(() => {
  project.cleanup();
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!bubblewrap.ok)("what sandboxed commands cannot read", () => {
  it("SSH keys, cloud credentials and Sylk's home (the trust store, other projects' databases) are hidden; the project is not", async () => {
    const { run } = sandboxedRegistry(project.root, { env });
    for (const path of [".ssh/id_rsa", ".aws/credentials", ".sylk/trusted-folders.json", ".sylk/projects/0123/vector.db"]) {
      const result = await run(`cat ${join(home, path)}`);
      expect(result.isError, path).toBe(true);
      expect(result.output, path).not.toContain("secret");
      expect(result.output, path).not.toContain("conversations");
    }
    const listing = await run(`ls -A ${join(home, ".ssh")} ${join(home, ".sylk")}`);
    expect(listing.output).not.toMatch(/id_rsa|trusted-folders|projects/);
    // A token file reads as empty, so the tools that read it (npm) still work.
    const npmrc = await run(`cat ${join(home, ".npmrc")} && echo read`);
    expect(npmrc.isError, npmrc.output).toBe(false);
    expect(npmrc.output).not.toContain("authToken");
    // So does Sylk's own settings file (its MCP servers' tokens), and a shell's history.
    for (const path of [".sylkrc", ".bash_history"]) {
      const result = await run(`cat ${join(home, path)}`);
      expect(result.output, path).not.toContain("secret");
    }
    // The rest of the home directory is readable, and the project readable and writable.
    const work = await run(`cat ${join(home, "notes/todo.txt")} && cat src/a.ts && echo b > src/b.ts`);
    expect(work.isError, work.output).toBe(false);
    expect(work.output).toContain("buy milk");
    expect(readFileSync(join(project.root, "src/b.ts"), "utf8")).toBe("b\n");
  });

  it("hidden places cannot be written either", async () => {
    const { run } = sandboxedRegistry(project.root, { env, writableDirectories: [home] });
    const result = await run(`echo 'ssh-ed25519 attacker' >> ${join(home, ".ssh/authorized_keys")}`);
    expect(result.isError).toBe(true);
    expect((await run(`echo ok > ${join(home, "notes/new.txt")}`)).isError).toBe(false);
  });

  it("sandbox.denyRead hides more", async () => {
    const { run, sandbox } = sandboxedRegistry(project.root, { env, denyRead: ["~/private"] });
    const result = await run(`cat ${join(home, "private/diary.txt")}`);
    expect(result.isError).toBe(true);
    expect(result.output).not.toContain("dear diary");
    expect(sandbox.status).toMatchObject({ hidden: expect.arrayContaining(["~/.ssh", "~/.sylk", "~/private"]) });
    expect(describeSandbox(sandbox.status)).toMatch(/hidden/);
  });

  it("a place that holds the project is not hidden, and the user is told why", async () => {
    const inside = join(home, "private/project");
    mkdirSync(inside);
    writeFileSync(join(inside, "main.c"), "int main;\n");
    const { run, sandbox } = sandboxedRegistry(inside, { env, denyRead: ["~/private"] });
    const result = await run("cat main.c");
    expect(result.isError, result.output).toBe(false);
    expect(keptReadable(sandbox.status)).toEqual([
      "~/private is readable by sandboxed commands: it holds the project, so hiding it would hide that too.",
    ]);
  });
});

describe("the read denial plan", () => {
  it("hides what exists, a directory as a directory and a file as a file, and nothing twice", () => {
    const plan = readDenial({ root: project.root, writable: [], network: false }, { env, sylkHome: join(home, ".sylk") }, [
      join(home, ".ssh/id_rsa"),
      join(home, "absent"),
    ]);
    expect(plan.hidden).toEqual(
      expect.arrayContaining([
        { path: join(home, ".sylk"), kind: "directory" },
        { path: join(home, ".ssh"), kind: "directory" },
        { path: join(home, ".npmrc"), kind: "file" },
      ]),
    );
    // ~/.ssh/id_rsa is inside the hidden ~/.ssh already; absent places are left alone.
    expect(plan.hidden.map((entry) => entry.path)).not.toContain(join(home, ".ssh/id_rsa"));
    expect(plan.hidden.map((entry) => entry.path)).not.toContain(join(home, "absent"));
    expect(plan.kept).toEqual([]);
  });

  it("keeps a place that holds a writable directory, with why", () => {
    const plan = readDenial(
      { root: project.root, writable: [join(home, ".aws/cache")], network: false },
      { env, sylkHome: join(home, ".sylk") },
      [],
    );
    expect(plan.kept).toEqual([{ path: "~/.aws", reason: "it holds the writable directory ~/.aws/cache" }]);
  });
});
