import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/system-prompt.js";
import { SESSION_TOOL_NAMES } from "../../src/agent/tools/tool-names.js";
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
  }).replaceAll(project.sylkHome, "<home>");

describe("system prompt", () => {
  it("is stable and says who Sylk is, how to work and where it runs", () => {
    expect(build()).toMatchSnapshot();
    expect(build()).toBe(build());
  });

  it("includes the user's ~/.sylk/SYLK.md, then the project's AGENTS.md and SYLK.md, secrets masked", () => {
    project.write("../home/SYLK.md", "Prefer tabs.\n");
    const prompt = buildSystemPrompt({
      root: project.root,
      sylkHome: project.sylkHome,
      toolNames: [],
      today: "2026-11-22",
      platform: "linux",
    });
    expect(prompt).toContain("User instructions (~/.sylk/SYLK.md):\nPrefer tabs.");
    project.write("AGENTS.md", "Run `npm test` before finishing.\n");
    project.write("SYLK.md", 'The staging token is "ghp_abcdefghijklmnopqrstuvwxyz0123456789".\n');
    const withProject = buildSystemPrompt({ root: project.root, sylkHome: project.sylkHome, toolNames: [], today: "x", platform: "linux" });
    expect(withProject.indexOf("User instructions")).toBeLessThan(withProject.indexOf("Project instructions (AGENTS.md)"));
    expect(withProject.indexOf("Project instructions (AGENTS.md)")).toBeLessThan(withProject.indexOf("Project instructions (SYLK.md)"));
    expect(withProject).toContain("Run `npm test` before finishing.");
    expect(withProject).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(withProject).toContain("[REDACTED:github-token]");
  });
});
