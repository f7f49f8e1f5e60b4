import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BadInputError } from "../../src/errors.js";
import { SESSION_TOOL_NAMES } from "../../src/roles/tool-names.js";
import { delegableAgents } from "../../src/agent/tools/delegate.js";
import { agentListings } from "../../src/roles/agent-catalog.js";
import { type CustomAgent, DEFAULT_CUSTOM_TOOLS, loadCustomAgents, MUTATING_TOOLS, parseAgentFile } from "../../src/roles/custom-agents.js";
import { resolveRole } from "../../src/roles/resolve-role.js";
import { plantFifo } from "../helpers/fifo.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject();
});
afterEach(() => project.cleanup());

const agentFile = (front: string, body = "Review the change.") => `---\n${front.trim()}\n---\n${body}\n`;
const userAgent = (name: string, text: string) => {
  mkdirSync(join(project.sylkHome, "agents"), { recursive: true });
  writeFileSync(join(project.sylkHome, "agents", `${name}.md`), text);
};
const projectAgent = (name: string, text: string) => project.write(`.sylk/agents/${name}.md`, text);
const load = () => loadCustomAgents({ sylkHome: project.sylkHome, root: project.root });
const parse = (text: string, name = "reviewer") => parseAgentFile(text, { path: `/x/${name}.md`, source: "project" });
const messageOf = (text: string, name?: string) => {
  const result = parse(text, name);
  if (!("message" in result) || "name" in result) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.message;
};

describe("agent files", () => {
  it("loads a file's front matter and body, with the defaults", () => {
    const agent = parse(agentFile("name: reviewer\ndescription: Reviews diffs for bugs."));
    expect(agent).toEqual({
      name: "reviewer",
      source: "project",
      path: "/x/reviewer.md",
      category: "standalone",
      description: "Reviews diffs for bugs.",
      tools: [...DEFAULT_CUSTOM_TOOLS],
      readOnly: true,
      model: "inherit",
      prompt: "Review the change.",
    });
  });

  it("takes tools as a list or a comma-separated string, in the file's order", () => {
    const list = parse(
      agentFile("name: reviewer\ndescription: d\ntools: [grep, read_file]\nmodel: claude-haiku-4-5\ncategory: pipeline"),
    ) as CustomAgent;
    expect(list).toMatchObject({ tools: ["grep", "read_file"], model: "claude-haiku-4-5", category: "pipeline", readOnly: true });
    const comma = parse(agentFile("name: reviewer\ndescription: d\ntools: read_file, edit_file ,run_command")) as CustomAgent;
    expect(comma).toMatchObject({ tools: ["read_file", "edit_file", "run_command"], readOnly: false });
  });

  it("the read-only base set holds nothing that writes, runs or delegates, and every name in it exists", () => {
    expect(DEFAULT_CUSTOM_TOOLS.filter((tool) => MUTATING_TOOLS.includes(tool))).toEqual([]);
    for (const tool of DEFAULT_CUSTOM_TOOLS) expect(SESSION_TOOL_NAMES).toContain(tool);
  });

  it("is read-only exactly when it holds no tool that writes, runs or starts another agent (the registry walk, custom agents included)", () => {
    const widening = ["edit_file", "write_file", "run_command", "delegate", "route_to_agent"];
    for (const tool of SESSION_TOOL_NAMES) {
      const agent = parse(agentFile(`name: reviewer\ndescription: d\ntools: [${tool}]`)) as CustomAgent;
      expect(agent.readOnly, tool).toBe(!widening.includes(tool));
    }
  });

  it("refuses any other key: nothing in a file may widen permissions, hooks or servers", () => {
    expect(messageOf(agentFile("name: reviewer\ndescription: d\npermissionMode: bypassPermissions"))).toMatch(
      /^unknown key permissionMode: .*only name, description, tools, model and category/,
    );
    expect(messageOf(agentFile("name: reviewer\ndescription: d\nhooks: {}\nmcpServers: {}"))).toMatch(/unknown keys hooks, mcpServers/);
  });

  it("refuses a tool Sylk does not have", () => {
    expect(messageOf(agentFile("name: reviewer\ndescription: d\ntools: read_file, Bash, WebFetch"))).toMatch(
      /^tools: unknown tools Bash, WebFetch \(Sylk's tools: read_file, /,
    );
    expect(messageOf(agentFile("name: reviewer\ndescription: d\ntools: []"))).toBe(
      "tools: names no tool; leave it out for the read-only set",
    );
  });

  it("refuses a knowledge agent that could write, run or delegate", () => {
    expect(messageOf(agentFile("name: reviewer\ndescription: d\ncategory: knowledge\ntools: [read_file, run_command]"))).toMatch(
      /knowledge agent .* may not have run_command/,
    );
    expect(messageOf(agentFile("name: reviewer\ndescription: d\ncategory: knowledge\ntools: [delegate, write_file]"))).toMatch(
      /may not have delegate, write_file/,
    );
  });

  it("checks the name, the description, the model and the category", () => {
    expect(messageOf(agentFile("name: other\ndescription: d"))).toMatch(/name "other" must equal the file's name \(reviewer\)/);
    expect(messageOf(agentFile("name: Reviewer\ndescription: d"), "Reviewer")).toMatch(/^name: must be lowercase/);
    expect(messageOf(agentFile("name: reviewer"))).toBe("description is required");
    expect(messageOf(agentFile(`name: reviewer\ndescription: ${"x".repeat(501)}`))).toMatch(/description: is longer than 500/);
    expect(messageOf(agentFile("name: reviewer\ndescription: d\nmodel: https://evil.example/v1"))).toMatch(/^model: must be a model name/);
    expect(messageOf(agentFile("name: reviewer\ndescription: d\ncategory: boss"))).toMatch(/^category: /);
    expect(messageOf(agentFile("name: librarian\ndescription: d"), "librarian")).toMatch(/"librarian" is a built-in agent's name/);
  });

  it("says where the YAML is wrong, by the file's line", () => {
    // Line 1 is `---`: the duplicate key on the YAML's third line is the file's fourth.
    expect(messageOf("---\nname: reviewer\ndescription: d\nname: again\n---\nbody\n")).toMatch(
      /^YAML error at line 4: Map keys must be unique/,
    );
    expect(messageOf("---\nname: reviewer\ndescription: [unclosed\n---\n")).toMatch(/^YAML error at line \d+: /);
    expect(messageOf("no front matter here\n")).toMatch(/^no front matter/);
    expect(messageOf("---\nname: reviewer\n")).toMatch(/^no front matter/);
    expect(messageOf("---\n- a\n- b\n---\n")).toMatch(/must be a YAML mapping/);
  });

  it("masks secrets in the body and clips it to 40,000 characters, as AGENTS.md is read", () => {
    const key = `sk-ant-api03-${"a1B2".repeat(10)}`;
    const masked = parse(agentFile("name: reviewer\ndescription: d", `Use the key ${key} when asked.`)) as CustomAgent;
    expect(masked.prompt).not.toContain(key);
    expect(masked.prompt).toMatch(/^Use the key .+ when asked\.$/);
    const long = parse(agentFile("name: reviewer\ndescription: d", "y".repeat(50_000))) as CustomAgent;
    expect(long.prompt.length).toBeLessThan(40_100);
    expect(long.prompt).toMatch(/\[… truncated\]$/);
  });
});

describe("loading the user's and the project's agents", () => {
  it("loads the good files beside a malformed one, which is reported with its path and line", () => {
    projectAgent("alpha", agentFile("name: alpha\ndescription: First."));
    projectAgent("broken", "---\nname: broken\ndescription: d\ntools: [read_file\n---\n");
    projectAgent("zeta", agentFile("name: zeta\ndescription: Last."));
    project.write(".sylk/agents/notes.txt", "not an agent");
    const { agents, errors } = load();
    expect(agents.map((agent) => agent.name)).toEqual(["alpha", "zeta"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe(join(project.root, ".sylk", "agents", "broken.md"));
    expect(errors[0]?.message).toMatch(/^YAML error at line \d+:/);
  });

  it("a name in both places is the user's, and the project's file is reported", () => {
    userAgent("reviewer", agentFile("name: reviewer\ndescription: Mine."));
    projectAgent("reviewer", agentFile("name: reviewer\ndescription: The repository's.\ntools: [run_command]"));
    const { agents, errors } = load();
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ source: "user", description: "Mine.", path: join(project.sylkHome, "agents", "reviewer.md") });
    expect(errors).toEqual([
      {
        path: join(project.root, ".sylk", "agents", "reviewer.md"),
        message: expect.stringMatching(/already the user's .*which wins/) as string,
      },
    ]);
  });

  it("refuses a project file that is a symbolic link out of the project, and keeps one inside it", () => {
    project.write("docs/inside.md", agentFile("name: inside\ndescription: d"));
    const outside = join(project.sylkHome, "..", "secret.md");
    writeFileSync(outside, agentFile("name: escape\ndescription: d", "the user's private notes"));
    mkdirSync(join(project.root, ".sylk", "agents"), { recursive: true });
    symlinkSync(outside, join(project.root, ".sylk", "agents", "escape.md"));
    symlinkSync(join(project.root, "docs", "inside.md"), join(project.root, ".sylk", "agents", "inside.md"));
    const { agents, errors } = load();
    expect(agents.map((agent) => agent.name)).toEqual(["inside"]);
    expect(errors).toEqual([
      {
        path: join(project.root, ".sylk", "agents", "escape.md"),
        message: expect.stringMatching(/symbolic link .* outside the project/) as string,
      },
    ]);
  });

  it("reports a FIFO named like an agent file at once instead of waiting on it", () => {
    projectAgent("good", agentFile("name: good\ndescription: d"));
    const fifo = plantFifo(join(project.root, ".sylk", "agents", "stuck.md"));
    try {
      const started = performance.now();
      const { agents, errors } = load();
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(agents.map((agent) => agent.name)).toEqual(["good"]);
      expect(errors).toEqual([{ path: fifo.path, message: "a FIFO (named pipe), not a regular file; not loaded" }]);
    } finally {
      fifo.remove();
    }
  });

  it("refuses a file over 64 KB without reading it", () => {
    projectAgent("huge", agentFile("name: huge\ndescription: d", "z".repeat(70_000)));
    const { agents, errors } = load();
    expect(agents).toEqual([]);
    expect(errors[0]?.message).toMatch(/bytes: an agent file may have at most 65536 \(64 KB\)/);
  });

  it("no agents directory is no agents and no errors", () => {
    expect(load()).toEqual({ agents: [], errors: [] });
  });
});

describe("resolving a role", () => {
  const reviewer = parse(
    agentFile(
      "name: reviewer\ndescription: Reviews diffs.\ntools: [read_file, grep]\nmodel: claude-haiku-4-5\ncategory: pipeline",
      "Be terse.",
    ),
  ) as CustomAgent;

  it("a built-in name resolves to its built-in role", () => {
    const role = resolveRole("librarian", [reviewer]);
    expect(role).toMatchObject({
      name: "librarian",
      source: "builtin",
      agentType: "librarian",
      handoffType: "librarian",
      category: "knowledge",
      readOnly: true,
      model: undefined,
    });
    expect(role.prompt(role.tools)).toContain("## Your role: librarian");
  });

  it("a custom name resolves to its tools, prompt, hook, model and the built-in type whose handoff it borrows", () => {
    const role = resolveRole("reviewer", [reviewer]);
    expect(role).toMatchObject({
      name: "reviewer",
      source: "project",
      agentType: "custom:reviewer",
      handoffType: "engineer",
      category: "pipeline",
      tools: ["read_file", "grep"],
      readOnly: true,
      hook: "focused_prefetch",
      model: "claude-haiku-4-5",
    });
    expect(role.prompt(["read_file"])).toBe("## Your role: reviewer\n\nReviews diffs.\n\nBe terse.");
    const knowledge = resolveRole("k", [{ ...reviewer, name: "k", category: "knowledge", model: "inherit" }]);
    expect(knowledge).toMatchObject({ handoffType: "librarian", hook: "full_prefetch", model: undefined });
    expect(resolveRole("s", [{ ...reviewer, name: "s", category: "standalone" }])).toMatchObject({
      handoffType: "orchestrator",
      hook: "full_prefetch",
    });
  });

  it("an unknown name is a usage error listing the known agents", () => {
    expect(() => resolveRole("nobody", [reviewer])).toThrow(BadInputError);
    expect(() => resolveRole("nobody", [reviewer])).toThrow(
      /Unknown agent "nobody"\. Known agents: librarian, .*guide, reviewer \(project\)/,
    );
  });

  it("custom agents are listed after the built-ins, and may be offered to delegate", () => {
    const listed = agentListings([reviewer]);
    expect(listed.at(-1)).toEqual({
      name: "reviewer",
      source: "project",
      path: "/x/reviewer.md",
      category: "pipeline",
      description: "Reviews diffs.",
      tools: ["read_file", "grep"],
      read_only: true,
      model: "claude-haiku-4-5",
      prompt_tokens: expect.any(Number) as number,
    });
    expect(delegableAgents([reviewer]).map((agent) => agent.name)).toContain("reviewer");
    expect(delegableAgents().map((agent) => agent.name)).not.toContain("reviewer");
  });
});
