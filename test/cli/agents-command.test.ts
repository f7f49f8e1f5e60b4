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

describe("sylk agents", () => {
  it("lists the ten built-in agents with their tools and whether they may change files, as text and JSON", async () => {
    const json = await sylk(["agents", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as { agents: Array<Record<string, unknown>>; errors: unknown[] };
    expect(listed.errors).toEqual([]);
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
    ]);
    const librarian = listed.agents[0]!;
    expect(Object.keys(librarian).sort()).toEqual([
      "category",
      "description",
      "model",
      "name",
      "path",
      "prompt_tokens",
      "read_only",
      "source",
      "tools",
    ]);
    expect(librarian).toMatchObject({ source: "builtin", path: null, category: "knowledge", read_only: true, model: "inherit" });
    expect(librarian.tools).not.toContain("edit_file");
    expect(librarian.prompt_tokens).toBeGreaterThan(50);
    expect(listed.agents.find((agent) => agent.name === "inspector")).toMatchObject({ category: "standalone", read_only: true });

    const text = await sylk(["agents"]);
    expect(text.stdout).toMatch(/^librarian\s+knowledge\s+read-only\s+Knows this codebase/m);
    expect(text.stdout).toMatch(/^engineer\s+pipeline\s+edits, commands\s+Implements/m);
  });

  it("sylk ask --agent librarian asks with the librarian's prompt and without write or command tools", async () => {
    server.enqueue(reply().text("greet is in src/hello.ts:1-3."));
    const run = await sylk(["ask", "--yes", "--agent", "librarian", "where is greet?"]);
    expect(run.code, run.stderr).toBe(0);
    const body = messageRequests(server).at(-1)?.body as { tools: Array<{ name: string }>; system: unknown };
    const names = body.tools.map((tool) => tool.name);
    expect(names).toContain("search_codebase");
    expect(names).not.toContain("run_command");
    expect(names).not.toContain("edit_file");
    expect(JSON.stringify(body.system)).toContain("## Your role: librarian");
  });
});
