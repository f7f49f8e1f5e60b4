import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  estimateInputTokens,
  type FakeAnthropicServer,
  messageRequests,
  reply,
  startFakeAnthropicServer,
} from "../../helpers/fake-anthropic-server.js";
import { runCli } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { everythingServer, resultText, toolResultsIn, writeUserConfig } from "../../mcp/mcp-test-servers.js";

/**
 * End to end through `sylk ask` and the real SDK against the loopback fake:
 * the engineer is sent its core tools and find_tools; the rest are named,
 * loaded on request, and counted in the window once sent.
 */
let project: TempProject;
let server: FakeAnthropicServer;

const CORE = ["read_file", "glob", "grep", "search_codebase", "edit_file", "write_file", "run_command", "retrieve_context", "todo_write"];

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  // About 1,600 tokens of code to read.
  const body = Array.from({ length: 160 }, (_, index) => `export const ledgerEntry${index} = computeLedger(${index}, "settled");`).join(
    "\n",
  );
  project = createTempProject({ "src/ledger.ts": `${body}\n`, "README.md": "# Ledger\n" });
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

function ask(args: string[]) {
  return runCli(["ask", "--yes", "--output-format", "stream-json", ...args], {
    cwd: project.root,
    env: { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
    timeoutMs: 60_000,
  });
}

const findToolsDescription = (index: number): string =>
  ((messageRequests(server)[index]?.body.tools ?? []) as Array<{ name: string; description: string }>).find(
    (tool) => tool.name === "find_tools",
  )?.description ?? "";

const sentTools = (index: number): string[] =>
  ((messageRequests(server)[index]?.body.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name);

describe("deferred tools", () => {
  it("sends the core set and find_tools; find_tools loads web_fetch into every later request, and a resumed session keeps it", async () => {
    server.enqueue(
      reply().toolUse("find_tools", { query: "fetch a web page" }, "toolu_find"),
      reply().text("web_fetch is loaded."),
      reply().text("Still here."),
    );
    const run = await ask(["Load what you need to read a web page"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sentTools(0)).toEqual([...CORE, "find_tools"]);
    expect(findToolsDescription(0)).toMatch(/Available to load: .*web_fetch/);
    const answer = resultText(toolResultsIn(messageRequests(server)[1]?.body)[0]);
    expect(answer).toMatch(/^Loaded: web_fetch/);
    expect(answer).toContain("## web_fetch");
    expect(sentTools(1)).toContain("web_fetch");
    expect(sentTools(1)).toContain("find_tools");

    const resumed = await ask(["--continue", "Go on"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sentTools(2)).toContain("web_fetch");
  });

  it("runs a deferred tool the model calls by name before loading it, and sends it from then on; a wrong guess at its input gets its definition", async () => {
    server.enqueue(
      reply().toolUse("web_fetch", { address: "https://example.com" }, "toolu_guess"),
      reply().toolUse("get_turn_range", { from_turn: 0, to_turn: 1 }, "toolu_early"),
      reply().text("Turn one was the prompt."),
    );
    const run = await ask(["Show turn one"]);
    expect(run.code, run.stderr).toBe(0);
    const [guess] = toolResultsIn(messageRequests(server)[1]?.body);
    expect(guess?.is_error).toBe(true);
    expect(resultText(guess)).toContain("Invalid input for web_fetch");
    expect(resultText(guess)).toContain("web_fetch was not loaded, so you had not seen its definition");
    expect(resultText(guess)).toContain('Input schema: {"type":"object"');
    expect(sentTools(0)).not.toContain("get_turn_range");
    expect(sentTools(1)).toContain("web_fetch");
    const [range] = toolResultsIn(messageRequests(server)[2]?.body);
    expect(range?.is_error ?? false).toBe(false);
    expect(resultText(range)).toContain("Show turn one");
    expect(sentTools(2)).toEqual(expect.arrayContaining(["web_fetch", "get_turn_range"]));
  });

  it("defers every MCP server's tool, and find_tools finds and loads one by what it does", async () => {
    writeUserConfig(project.env, { mcpServers: { everything: everythingServer() }, permissions: { allow: ["mcp__everything__echo"] } });
    server.enqueue(
      reply().toolUse("find_tools", { query: "echo back the input" }, "toolu_find"),
      reply().toolUse("mcp__everything__echo", { message: "hi" }, "toolu_echo"),
      reply().text("It echoed."),
    );
    const run = await ask(["echo something"]);
    expect(run.code, run.stderr).toBe(0);
    expect(sentTools(0).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(findToolsDescription(0)).toContain("mcp__everything__echo");
    expect(sentTools(1)).toContain("mcp__everything__echo");
    expect(resultText(toolResultsIn(messageRequests(server)[2]?.body)[0])).toBe("Echo: hi");
  });

  it("keeps every request of an engineer's run within an 8,000-token window: reads, a find_tools load, several turns", async () => {
    server.enqueue(
      reply().toolUse("read_file", { path: "src/ledger.ts" }, "toolu_read"),
      reply().toolUse("find_tools", { names: ["get_symbol_context", "web_fetch"] }, "toolu_find"),
      reply().toolUse("grep", { pattern: "ledgerEntry15" }, "toolu_grep"),
      reply().toolUse("read_file", { path: "README.md" }, "toolu_readme"),
      reply().text("The ledger entries are in src/ledger.ts."),
    );
    const run = await ask(["--context-window", "8000", "Where are the ledger entries settled?"]);
    expect(run.code, run.stderr).toBe(0);
    const requests = messageRequests(server);
    expect(requests).toHaveLength(5);
    expect(sentTools(2)).toEqual(expect.arrayContaining(["get_symbol_context", "web_fetch"]));
    for (const request of requests) {
      expect(estimateInputTokens(request.body) + (request.body.max_tokens as number)).toBeLessThanOrEqual(8_000);
    }
  });
});
