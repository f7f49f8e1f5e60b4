import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

/** `sylk memory`: what Sylk keeps across sessions, for people and scripts. */
let server: FakeAnthropicServer;
let project: TempProject;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({ "src/a.ts": "export const a = 1;\n" });
  env = {
    ...project.env,
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_MAX_ATTEMPTS: "1",
    SYLK_KNOWLEDGE_ENABLED: "true",
  };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const sylk = (args: string[]) => runCli(args, { cwd: project.root, env });
const systemOf = (index: number) => JSON.stringify((messageRequests(server)[index]!.body as any).system);

describe("sylk memory", () => {
  it("adds, lists, searches and removes what is kept, as text and JSON, secrets masked", async () => {
    expect((await sylk(["index", "--yes"])).code).toBe(0);
    const added = await sylk([
      "memory",
      "add",
      "Always",
      "run",
      "the",
      "linter",
      "before",
      "committing,",
      "token",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^Kept rule [0-9a-f]{8}: Always run the linter before committing, token \[REDACTED:/);
    const listed = JSON.parse((await sylk(["memory", "list", "--json"])).stdout) as {
      items: Array<{ id: string; kind: string; source: string; content: string }>;
      inquiries: unknown[];
    };
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ kind: "rule", source: "user" });
    expect(listed.items[0]?.content).not.toContain("ghp_");
    expect((await sylk(["memory", "search", "linter"])).stdout).toContain("Always run the linter");
    const id = listed.items[0]?.id.slice(0, 8) as string;
    expect((await sylk(["memory", "rm", id])).stdout).toMatch(/^Removed rule/);
    expect((await sylk(["memory", "list"])).stdout).toContain("Nothing is kept yet.");
    const bad = await sylk(["memory", "frobnicate"]);
    expect(bad.code).toBe(42);
    expect(bad.stderr).toContain('Unknown memory action "frobnicate"');
  });

  it("Scenario: Inquiries present in context — a question the agent recorded is in later prompts until answered, and the answer becomes knowledge", async () => {
    server.enqueue(
      reply().toolUse(
        "record_inquiry",
        { topic: "deploy target", question: "Which cluster do releases go to?", context: "The deploy script names two." },
        "toolu_q",
      ),
      reply().text("I asked you which cluster."),
      reply().text("Deploys need the cluster; see the question."),
      reply().text("Releases go to blue."),
    );
    expect((await sylk(["ask", "--yes", "How do we deploy a release?"])).code).toBe(0);
    expect((await sylk(["ask", "How do we deploy a release to the cluster?"])).code).toBe(0);
    expect(systemOf(2)).toContain(
      "## Pending Knowledge Inquiries\\n- [deploy target] Which cluster do releases go to? (context: The deploy script names two.)",
    );

    const pending = JSON.parse((await sylk(["memory", "list", "inquiries", "--json"])).stdout) as { inquiries: Array<{ id: string }> };
    const answered = await sylk(["memory", "answer", pending.inquiries[0]?.id.slice(0, 8) as string, "The", "blue", "cluster."]);
    expect(answered.stdout).toMatch(/^Answered "Which cluster do releases go to\?"; kept as knowledge/);
    expect((await sylk(["ask", "Which cluster does a release deploy go to?"])).code).toBe(0);
    expect(systemOf(3)).not.toContain("Pending Knowledge Inquiries");
    expect(systemOf(3)).toContain("deploy target: Which cluster do releases go to? The blue cluster.");
  });

  // Issue 27 §3: "Always use pnpm" saved in one session was missing from the next session's "How do I install the
  // dependencies?", because layers were retrieved by keyword overlap (the two share no word). Two processes, knowledge
  // at its default: the saved rule reaches the next session's request as a standing rule.
  it("a rule saved in one process stands in the next session's prompt, though the prompt shares no word with it", async () => {
    const { SYLK_KNOWLEDGE_ENABLED: _knowledgeOn, ...defaults } = env;
    const added = await runCli(["memory", "add", "Always use pnpm"], { cwd: project.root, env: defaults });
    expect(added.code, added.stderr).toBe(0);
    server.enqueue(reply().text("Run pnpm install."));
    const asked = await runCli(["ask", "--yes", "How do I install the dependencies?"], { cwd: project.root, env: defaults });
    expect(asked.code, asked.stderr).toBe(0);
    expect(messageRequests(server)).toHaveLength(1);
    expect(systemOf(0)).toContain("## The User's Standing Rules");
    expect(systemOf(0)).toContain("Always use pnpm");
  });

  it("memory add --user keeps it for every project, and another project lists it as such", async () => {
    const kept = await sylk(["memory", "add", "--user", "I", "prefer", "tabs", "for", "indentation"]);
    expect(kept.stdout).toMatch(/^Kept preference for every project [0-9a-f]{8}: I prefer tabs for indentation/);
    const other = createTempProject({ "b.ts": "export const b = 2;\n" });
    try {
      const listed = await runCli(["memory", "list", "--json"], { cwd: other.root, env: { ...env, SYLK_HOME: project.sylkHome } });
      expect(listed.code, listed.stderr).toBe(0);
      const items = (JSON.parse(listed.stdout) as { items: Array<{ content: string; scope: string }> }).items;
      expect(items).toEqual([expect.objectContaining({ content: "I prefer tabs for indentation", scope: "user" })]);
    } finally {
      other.cleanup();
    }
  });
});
