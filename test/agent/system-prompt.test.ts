import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { SESSION_TOOL_NAMES } from "../../src/roles/tool-names.js";
import { plantFifo } from "../helpers/fifo.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject();
});
afterEach(() => project.cleanup());

const build = () =>
  buildSystemPrompt({
    root: "/repo",
    sylkHome: project.sylkHome,
    toolNames: [...SESSION_TOOL_NAMES],
    today: "2026-11-22",
    platform: "linux",
  }).text.replaceAll(project.sylkHome, "<home>");

describe("system prompt", () => {
  it("is stable and says who Sylk is, how to work and where it runs", () => {
    expect(build()).toMatchSnapshot();
    expect(build()).toBe(build());
  });

  it("lists the tools sent and counts the deferred ones, and tells how to work only with the tools sent", () => {
    const prompt = buildSystemPrompt({
      root: "/repo",
      sylkHome: project.sylkHome,
      toolNames: ["read_file", "list_files", "grep", "edit_file", "web_fetch"],
      deferredNames: ["list_files", "web_fetch"],
      today: "2026-11-22",
      platform: "linux",
    }).text;
    expect(prompt).toContain("tools: read_file, grep, edit_file; find_tools loads 2 more.");
    expect(prompt).toContain("- Find before you answer: grep for exact text, read_file for detail.");
    expect(prompt).not.toContain("list_files and read_file");
  });

  it("includes the user's ~/.sylk/SYLK.md, then the project's AGENTS.md and SYLK.md, secrets masked", () => {
    project.write("../home/SYLK.md", "Prefer tabs.\n");
    const prompt = buildSystemPrompt({
      root: project.root,
      sylkHome: project.sylkHome,
      toolNames: [],
      today: "2026-11-22",
      platform: "linux",
    }).text;
    expect(prompt).toContain("User instructions (~/.sylk/SYLK.md):\nPrefer tabs.");
    project.write("AGENTS.md", "Run `npm test` before finishing.\n");
    project.write("SYLK.md", 'The staging token is "ghp_abcdefghijklmnopqrstuvwxyz0123456789".\n');
    const withProject = buildSystemPrompt({
      root: project.root,
      sylkHome: project.sylkHome,
      toolNames: [],
      today: "x",
      platform: "linux",
    }).text;
    expect(withProject.indexOf("User instructions")).toBeLessThan(withProject.indexOf("Project instructions (AGENTS.md)"));
    expect(withProject.indexOf("Project instructions (AGENTS.md)")).toBeLessThan(withProject.indexOf("Project instructions (SYLK.md)"));
    expect(withProject).toContain("Run `npm test` before finishing.");
    expect(withProject).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(withProject).toContain("[REDACTED:github-token]");
  });
});

describe("project memory files that are not what they seem", () => {
  const build = () => buildSystemPrompt({ root: project.root, sylkHome: project.sylkHome, toolNames: [], today: "x", platform: "linux" });

  it("a symbolic link out of the project is not read, and the user is told", () => {
    const credentials = join(project.root, "../credentials");
    writeFileSync(credentials, "[default]\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n");
    symlinkSync(credentials, join(project.root, "AGENTS.md"));
    symlinkSync("../credentials-missing", join(project.root, "SYLK.md"));
    const prompt = build();
    expect(prompt.text).not.toContain("aws_secret_access_key");
    expect(prompt.text).not.toContain("Project instructions");
    expect(prompt.notes).toEqual([
      `AGENTS.md was not read into the prompt: it is a symbolic link to ${credentials}, outside the project.`,
      `SYLK.md was not read into the prompt: it is a symbolic link to ${join(project.root, "../credentials-missing")}, outside the project.`,
    ]);
  });

  it("a symbolic link to a secrets file inside the project is not read (masking misses an unquoted value)", () => {
    project.write(".env", "DB_PASSWORD=hunter2hunter2\n");
    symlinkSync(".env", join(project.root, "AGENTS.md"));
    const prompt = build();
    expect(prompt.text).not.toContain("hunter2");
    expect(prompt.text).not.toContain("Project instructions");
    expect(prompt.notes).toEqual([
      `AGENTS.md was not read into the prompt: it is a symbolic link to ${join(realpathSync(project.root), ".env")}, a secrets file.`,
    ]);
  });

  it("a FIFO is not opened (it would hold the start), a link inside the project is read", () => {
    const fifo = plantFifo(join(project.root, "AGENTS.md"));
    try {
      project.write("docs/conventions.md", "Use tabs.\n");
      symlinkSync("docs/conventions.md", join(project.root, "SYLK.md"));
      const started = performance.now();
      const prompt = build();
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(prompt.notes).toEqual(["AGENTS.md was not read into the prompt: it is a FIFO (named pipe), not a regular file."]);
      expect(prompt.text).toContain("Project instructions (SYLK.md):\nUse tabs.");
    } finally {
      fifo.remove();
    }
  });

  it("the user's own SYLK.md may be a link anywhere (dotfiles)", () => {
    const dotfile = join(project.root, "../dotfiles-sylk.md");
    writeFileSync(dotfile, "Prefer short answers.\n");
    mkdirSync(project.sylkHome, { recursive: true });
    symlinkSync(dotfile, join(project.sylkHome, "SYLK.md"));
    expect(build().text).toContain("User instructions (~/.sylk/SYLK.md):\nPrefer short answers.");
  });
});
