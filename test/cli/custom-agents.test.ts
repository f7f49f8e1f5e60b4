import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/hello.ts": "export function greet(name: string): string {\n  return `hello ${name}`;\n}\n" });
  env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env });
const SECRET = `sk-ant-api03-${"Zy9x".repeat(10)}`;
const REVIEWER = [
  "---",
  "name: reviewer",
  "description: Reviews a change for bugs and says where they are.",
  "tools: grep, read_file",
  "category: pipeline",
  "---",
  "Read the diff, then the code around it. Report each bug with path:line.",
  `Never print the deploy key ${SECRET}.`,
  "",
].join("\n");
const userAgent = (name: string, text: string) => {
  mkdirSync(join(project.sylkHome, "agents"), { recursive: true });
  writeFileSync(join(project.sylkHome, "agents", `${name}.md`), text);
};

interface Request {
  tools: Array<{ name: string; description: string }>;
  system: unknown;
  model: string;
}

describe("custom agents", () => {
  it("sylk ask --agent <custom> asks with exactly the file's tools and its prompt, secrets masked; a bad file beside it is reported", async () => {
    project.write(".sylk/agents/reviewer.md", REVIEWER);
    project.write(".sylk/agents/broken.md", "---\nname: broken\ndescription: d\npermissionMode: bypassPermissions\n---\n");
    server.enqueue(reply().text("No bugs in src/hello.ts."));
    const run = await sylk(["ask", "--yes", "--agent", "reviewer", "review src/hello.ts"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("No bugs");
    expect(run.stderr).toContain(`agent file ${join(project.root, ".sylk", "agents", "broken.md")} not loaded: unknown key permissionMode`);
    const body = messageRequests(server).at(-1)?.body as Request;
    expect(body.tools.map((tool) => tool.name)).toEqual(["grep", "read_file"]);
    const system = JSON.stringify(body.system);
    expect(system).toContain(
      "## Your role: reviewer\\n\\nReviews a change for bugs and says where they are.\\n\\nRead the diff, then the code around it.",
    );
    expect(system).not.toContain(SECRET);
    expect(system).toContain("Never print the deploy key");
  });

  it("agent.type in .sylkrc may name a custom agent, and its model is used", async () => {
    userAgent("scout", "---\nname: scout\ndescription: Finds things.\nmodel: claude-haiku-4-5\ncategory: knowledge\n---\nFind it fast.\n");
    project.write(".sylkrc", JSON.stringify({ agent: { type: "scout" } }));
    server.enqueue(reply().text("In src/hello.ts."));
    const run = await sylk(["ask", "--yes", "--output-format", "stream-json", "where is greet?"]);
    expect(run.code, run.stderr).toBe(0);
    const body = messageRequests(server).at(-1)?.body as Request;
    expect(body.model).toBe("claude-haiku-4-5");
    // A knowledge agent's tools: its core ones sent, the others named by find_tools.
    expect(body.tools.map((tool) => tool.name)).toEqual(["read_file", "glob", "grep", "search_codebase", "retrieve_context", "find_tools"]);
    expect(body.tools.at(-1)?.description).toContain(
      "Available to load: list_files, search_history, get_turn_range, get_symbol_context, get_recent_changes.",
    );
    expect(JSON.stringify(body.system)).toContain("## Your role: scout");
    expect(run.stdout).toContain('"agent_type":"custom:scout"');
  });

  it("an unknown agent is a usage error (exit 42) listing the known ones, before anything is indexed or asked", async () => {
    userAgent("scout", "---\nname: scout\ndescription: Finds things.\n---\n");
    const run = await sylk(["ask", "--yes", "--agent", "nobody", "hi"]);
    expect(run.code).toBe(42);
    expect(run.stderr).toMatch(/Unknown agent "nobody"\. Known agents: librarian, .*, guide, scout \(user\)/);
    expect(messageRequests(server)).toHaveLength(0);
  });

  it("sylk agents --json lists built-in and custom agents with their source and path, and the files that did not load", async () => {
    userAgent("reviewer", REVIEWER);
    project.write(".sylk/agents/reviewer.md", REVIEWER.replace("tools: grep, read_file", "tools: run_command"));
    project.write(".sylk/agents/librarian.md", "---\nname: librarian\ndescription: Mine now.\n---\n");
    project.write(
      ".sylk/agents/curator.md",
      "---\nname: curator\ndescription: Keeps notes.\ncategory: knowledge\ntools: [read_file, run_command]\n---\n",
    );
    project.write(".sylk/agents/helper.md", "---\nname: helper\ndescription: Helps.\ntools: [read_file, Bash]\n---\n");
    project.write(".sylk/agents/big.md", `---\nname: big\ndescription: d\n---\n${"b".repeat(70_000)}`);
    project.write(".sylk/agents/notes.md", "---\nname: notes\ndescription: Takes notes.\nmodel: claude-haiku-4-5\n---\nWrite them down.\n");
    const json = await sylk(["agents", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as { agents: Array<Record<string, unknown>>; errors: Array<{ path: string; message: string }> };
    expect(Object.keys(listed).sort()).toEqual(["agents", "errors"]);
    expect(listed.agents.map((agent) => agent.name)).toEqual([
      "librarian",
      "archivalist",
      "academic",
      "architect",
      "engineer",
      "designer",
      "inspector",
      "tester",
      "orchestrator",
      "guide",
      "reviewer",
      "notes",
    ]);
    expect(listed.agents.find((agent) => agent.name === "reviewer")).toEqual({
      name: "reviewer",
      source: "user",
      path: join(project.sylkHome, "agents", "reviewer.md"),
      category: "pipeline",
      description: "Reviews a change for bugs and says where they are.",
      tools: ["grep", "read_file"],
      read_only: true,
      model: "inherit",
      prompt_tokens: expect.any(Number) as number,
    });
    expect(listed.agents.find((agent) => agent.name === "notes")).toMatchObject({
      source: "project",
      path: join(project.root, ".sylk", "agents", "notes.md"),
      model: "claude-haiku-4-5",
    });
    const errorOf = (name: string) =>
      listed.errors.find((error) => error.path === join(project.root, ".sylk", "agents", `${name}.md`))?.message;
    expect(listed.errors).toHaveLength(5);
    expect(errorOf("reviewer")).toMatch(/already the user's/);
    expect(errorOf("librarian")).toMatch(/built-in agent's name/);
    expect(errorOf("curator")).toMatch(/knowledge agent .* may not have run_command/);
    expect(errorOf("helper")).toMatch(/unknown tool Bash/);
    expect(errorOf("big")).toMatch(/at most 65536/);

    const text = await sylk(["agents"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^reviewer\s+pipeline\s+read-only\s+Reviews a change/m);
    expect(text.stdout).toContain(`user: ${join(project.sylkHome, "agents", "reviewer.md")}`);
    expect(text.stderr).toContain(`agent file ${join(project.root, ".sylk", "agents", "helper.md")} not loaded: tools: unknown tool Bash`);
    expect(text.stdout).not.toContain("not loaded");
  });
});
