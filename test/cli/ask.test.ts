import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openProject } from "../../src/app/project-services.js";
import { reply, startFakeAnthropicServer, type FakeAnthropicServer } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli, startCli } from "../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject;
let server: FakeAnthropicServer;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  server = await startFakeAnthropicServer();
  project = createTempProject({
    "src/billing/invoice.ts": "// Renders invoices.\nexport function renderInvoice(total: number) {\n  return `Total: ${total}`;\n}\n",
    "src/auth/jwt.ts": "export function validateToken(token: string) {\n  return token.length > 10;\n}\n",
    "AGENTS.md": "Always answer in one sentence.\n",
  });
  env = {
    ...project.env,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    ANTHROPIC_BASE_URL: server.baseUrl,
    SYLK_MODEL_RETRY_BASE_DELAY_MS: "5",
    SYLK_MODEL_RETRY_MAX_DELAY_MS: "20",
  };
});
afterEach(async () => {
  await server.close();
  project.cleanup();
});

const ask = (args: string[], input?: string, extraEnv: NodeJS.ProcessEnv = {}) =>
  runCli(["ask", "--yes", ...args], { cwd: project.root, env: { ...env, ...extraEnv }, ...(input ? { input } : {}) });

function toolResults(requestIndex: number): Array<{ tool_use_id: string; content: string; is_error: boolean }> {
  const messages = server.requests[requestIndex]?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  const last = messages.at(-1);
  return (last?.content ?? []).filter((block) => block.type === "tool_result") as never;
}

describe("sylk ask against the Messages API", () => {
  it("runs a multi-step tool-using task and prints only the answer on stdout", async () => {
    server.enqueue(
      reply().text("Let me search.").toolUse("search_codebase", { query: "render invoice" }, "toolu_a"),
      reply().toolUse("read_file", { path: "src/billing/invoice.ts" }, "toolu_b"),
      reply().text("renderInvoice in src/billing/invoice.ts:2-4 formats the total."),
    );
    const run = await ask(["Where are invoices rendered?"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("renderInvoice in src/billing/invoice.ts:2-4 formats the total.\n");
    expect(run.stderr).toContain("⏺ search_codebase(render invoice)");
    expect(run.stderr).toContain("⏺ read_file(src/billing/invoice.ts)");

    expect(server.requests).toHaveLength(3);
    const first = server.requests[0]?.body;
    expect(first.model).toBe("claude-sonnet-5-5");
    expect(first.system[0].text).toContain("Always answer in one sentence.");
    // The engineer's core tools are sent; find_tools names the others, which it loads on request.
    expect(first.tools.map((tool: { name: string }) => tool.name)).toEqual([
      "read_file",
      "glob",
      "grep",
      "search_codebase",
      "edit_file",
      "write_file",
      "run_command",
      "retrieve_context",
      "todo_write",
      "find_tools",
    ]);
    expect(first.tools.at(-1).description).toContain(
      "Available to load: list_files, search_history, get_turn_range, web_fetch, get_symbol_context, get_recent_changes, " +
        "consult_librarian, consult_archivalist, consult_academic, consult_architect, delegate.",
    );
    expect(toolResults(1)[0]?.content).toContain("src/billing/invoice.ts:");
    expect(toolResults(2)[0]?.content).toContain("export function renderInvoice");
    expect(String(server.requests[0]?.headers.authorization ?? server.requests[0]?.headers["x-api-key"])).toContain("sk-ant-test-key");
  });

  it("shows each call on stderr as the TUI does: what a grep looks for and where, a task list's size, never the call's JSON", async () => {
    server.enqueue(
      reply().toolUse("grep", { pattern: "export function renderInvoice", path: "src/billing" }, "toolu_g"),
      reply().toolUse(
        "todo_write",
        {
          todos: [
            { content: "read it", status: "done" },
            { content: "explain", status: "pending" },
          ],
        },
        "toolu_t",
      ),
      reply().text("Found it."),
    );
    const run = await ask(["Where is renderInvoice?"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('⏺ grep("export function renderInvoice" in src/billing)');
    expect(run.stderr).toContain("⏺ todo_write(2 tasks, 1 done)");
    expect(run.stderr).not.toContain('{"todos"');
  });

  it("prints one JSON object with --output-format json", async () => {
    server.enqueue(
      reply()
        .toolUse("grep", { pattern: "validateToken" }, "toolu_g")
        .usage({ input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 40 }),
      reply().text("It is in src/auth/jwt.ts.").usage({ input_tokens: 150, output_tokens: 12, cache_read_input_tokens: 90 }),
    );
    const run = await ask(["--output-format", "json", "Where is validateToken?"]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      response: "It is in src/auth/jwt.ts.",
      stop_reason: "end_turn",
      stats: { turns: 2, input_tokens: 250, output_tokens: 22, cache_read_tokens: 130, tool_calls: 1 },
      error: null,
    });
    expect(result.session_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("streams one JSON event per line with --output-format stream-json", async () => {
    server.enqueue(reply().toolUse("read_file", { path: "src/auth/jwt.ts" }, "toolu_r"), reply().text("Done reading.").chunkText(3));
    const run = await ask(["--output-format", "stream-json", "Read the JWT code"]);
    expect(run.code, run.stderr).toBe(0);
    const events = jsonLines(run.stdout);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("init");
    expect(types.at(-1)).toBe("result");
    expect(types).toContain("tool_use");
    expect(types).toContain("tool_result");
    expect(
      events
        .filter((event) => event.type === "message")
        .map((event) => event.delta)
        .join(""),
    ).toBe("Done reading.");
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({ name: "read_file", is_error: false });
    expect(events.at(-1)).toMatchObject({ type: "result", response: "Done reading.", stats: { turns: 2, tool_calls: 1 } });
  });

  it("recovers from 429, 529 and a cut stream without losing or duplicating a turn", async () => {
    server.enqueue(
      reply().status(429, { retryAfterMs: 5 }),
      reply().toolUse("read_file", { path: "src/auth/jwt.ts" }, "toolu_1"),
      reply().status(529),
      reply().text("A partial answer that is cut off mid-way").chunkText(4).cutAfter(6),
      reply().text("The final answer."),
    );
    const run = await ask(["--output-format", "stream-json", "Explain the JWT check"]);
    expect(run.code, run.stderr).toBe(0);
    const events = jsonLines(run.stdout);
    expect(events.filter((event) => event.type === "retry")).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ response: "The final answer.", stats: { turns: 2, tool_calls: 1 } });
    expect(server.pending()).toBe(0);

    const sessionId = events[0]?.session_id as string;
    const services = openProject({ root: project.root, env });
    try {
      // Prefetched context (agent_message entries) is recorded too; the conversation itself is:
      const entries = services.contentStore.getByTurnRange(sessionId, 1, 10).filter((entry) => entry.contentType !== "agent_message");
      expect(entries.map((entry) => [entry.turnNumber, entry.contentType])).toEqual([
        [1, "user_prompt"],
        [1, "agent_response"],
        [1, "tool_call"],
        [1, "tool_result"],
        [2, "agent_response"],
      ]);
      expect(entries.at(-1)?.content).toBe("The final answer.");
      expect(services.sessions.messages(sessionId)).toHaveLength(4);
    } finally {
      await services.close();
    }
  });

  it("refuses a write it cannot ask about, and tells the model why", async () => {
    server.enqueue(
      reply().toolUse("edit_file", { path: "src/auth/jwt.ts", old_string: "> 10", new_string: "> 20" }, "toolu_e"),
      reply().text("I could not edit the file: permission was denied."),
    );
    const run = await ask(["Make tokens longer"]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(1);
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/Permission denied: this run cannot ask the user .*--permission-mode accept-edits/);
    expect(readFileSync(join(project.root, "src/auth/jwt.ts"), "utf8")).toContain("> 10");

    server.enqueue(
      reply().toolUse("edit_file", { path: "src/auth/jwt.ts", old_string: "> 10", new_string: "> 20" }, "toolu_f"),
      reply().text("Edited."),
    );
    const allowed = await ask(["--permission-mode", "accept-edits", "Make tokens longer"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(readFileSync(join(project.root, "src/auth/jwt.ts"), "utf8")).toContain("> 20");
    expect(toolResults(3)[0]?.content).toContain("+  return token.length > 20;");
  });

  it("exits 53 at the turn limit, 41 on a rejected key, 42 without a prompt, 52 on bad config", async () => {
    server.enqueue(reply().toolUse("list_files", {}, "t1"), reply().toolUse("list_files", {}, "t2"));
    const limited = await ask(["--max-turns", "2", "--output-format", "json", "List everything forever"]);
    expect(limited.code).toBe(53);
    expect(JSON.parse(limited.stdout)).toMatchObject({ stop_reason: "max_turns", stats: { turns: 2 } });

    server.enqueue(reply().status(401, { message: "invalid x-api-key" }));
    const rejected = await ask(["--output-format", "json", "hello"]);
    expect(rejected.code).toBe(41);
    expect(JSON.parse(rejected.stdout).error).toMatchObject({ kind: "authentication" });

    const noPrompt = await runCli(["ask"], { cwd: project.root, env });
    expect(noPrompt.code).toBe(42);
    expect(noPrompt.stderr).toContain("Give a prompt");

    project.write(".sylkrc", '{ "agent": { "maxTurns": 0 } }');
    const badConfig = await ask(["hello"]);
    expect(badConfig.code).toBe(52);
    expect(badConfig.stderr).toContain('key "agent.maxTurns"');
  });

  it("logs each model call as a JSON line when SYLK_MODEL_LOG is set", async () => {
    server.enqueue(reply().status(529), reply().text("ok").usage({ input_tokens: 9, output_tokens: 2 }));
    const log = join(project.sylkHome, "logs", "model.jsonl");
    expect((await ask(["hello"], undefined, { SYLK_MODEL_LOG: log })).code).toBe(0);
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        provider: "anthropic",
        outcome: "complete",
        stopReason: "end_turn",
        retries: [expect.stringContaining("529")],
      }),
    ]);
    expect(lines[0].usage).toMatchObject({ inputTokens: 9, outputTokens: 2 });
  });

  it("stops a running turn on Ctrl-C and exits 130", async () => {
    server.enqueue(reply().hang());
    const child = startCli(["ask", "--yes", "--output-format", "stream-json", "hello"], { cwd: project.root, env });
    child.stdin?.end();
    let output = "";
    let interrupted = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // One Ctrl-C: a second one means "quit at once", without the result line.
      if (!interrupted && output.includes('"type":"turn"')) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(130);
    expect(jsonLines(output).at(-1)).toMatchObject({ type: "result", stop_reason: "interrupted" });
  });

  it("reads the prompt from stdin, and appends stdin as context to an argument", async () => {
    server.enqueue(reply().text("one"), reply().text("two"));
    expect((await ask([], "What is this project?\n")).code).toBe(0);
    expect((await ask(["Summarise this log"], "ERROR at line 3\n")).code).toBe(0);
    const prompts = server.requests.map((request) => request.body.messages[0].content[0].text);
    expect(prompts[0]).toBe("What is this project?");
    expect(prompts[1]).toBe("Summarise this log\n\n<stdin>\nERROR at line 3\n</stdin>");
  });

  it("continues and resumes sessions, and lists them", async () => {
    server.enqueue(reply().text("First answer."), reply().text("Second answer."), reply().text("Third answer."));
    const first = JSON.parse((await ask(["--output-format", "json", "First question"])).stdout);
    const second = JSON.parse((await ask(["--output-format", "json", "--continue", "Follow up"])).stdout);
    expect(second.session_id).toBe(first.session_id);
    const continued = server.requests[1]?.body.messages.map((message: { role: string }) => message.role);
    expect(continued).toEqual(["user", "assistant", "user"]);

    const third = JSON.parse((await ask(["--output-format", "json", "--resume", first.session_id.slice(0, 8), "Again"])).stdout);
    expect(third.session_id).toBe(first.session_id);
    expect(server.requests[2]?.body.messages).toHaveLength(5);

    const sessions = await runCli(["sessions", "--json"], { cwd: project.root, env });
    expect(JSON.parse(sessions.stdout).sessions).toMatchObject([{ id: first.session_id, title: "First question", turns: 3 }]);
    const unknown = await ask(["--resume", "nope", "x"]);
    expect(unknown.code).toBe(42);
  });

  it("leaves every prompt, response, call and result findable by turn range and history search", async () => {
    server.enqueue(
      reply().text("Checking the flux capacitor.").toolUse("grep", { pattern: "renderInvoice" }, "toolu_x"),
      reply().text("The flux capacitor is fine."),
    );
    const run = JSON.parse((await ask(["--output-format", "json", "Inspect the flux capacitor"])).stdout);
    const search = await runCli(["search", "--scope", "history", "--json", "flux capacitor"], { cwd: project.root, env });
    const results = JSON.parse(search.stdout).results as Array<{ entry: { contentType: string; sessionId: string } }>;
    expect(results.map((result) => result.entry.contentType).sort()).toEqual(
      expect.arrayContaining(["agent_response", "agent_response", "user_prompt"]),
    );
    expect(results.every((result) => result.entry.sessionId === run.session_id)).toBe(true);

    const services = openProject({ root: project.root, env });
    try {
      const entries = services.contentStore.getByTurnRange(run.session_id, 1, 2).filter((entry) => entry.contentType !== "agent_message");
      const byType = Object.fromEntries(entries.map((entry) => [`${entry.turnNumber}:${entry.contentType}`, entry]));
      expect(Object.keys(byType)).toEqual(["1:user_prompt", "1:agent_response", "1:tool_call", "1:tool_result", "2:agent_response"]);
      expect(byType["1:agent_response"]?.parentId).toBe(byType["1:user_prompt"]?.id);
      expect(byType["1:tool_call"]?.parentId).toBe(byType["1:agent_response"]?.id);
      expect(byType["1:tool_result"]?.parentId).toBe(byType["1:tool_call"]?.id);
      expect(byType["2:agent_response"]?.parentId).toBe(byType["1:tool_result"]?.id);
      expect(byType["1:tool_result"]?.content).toContain("src/billing/invoice.ts:2:");
      expect(byType["1:user_prompt"]?.tokenCount).toBeGreaterThan(0);
    } finally {
      await services.close();
    }
  });
});

describe("sylk ask without a model", () => {
  it("answers from the index with citations and says no model was used", async () => {
    const run = await runCli(["ask", "--yes", "where are invoices rendered"], {
      cwd: project.root,
      env: { ...project.env, ANTHROPIC_API_KEY: "" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("No model was used (ANTHROPIC_API_KEY is not set)");
    expect(run.stdout).toMatch(/1\. src\/billing\/invoice\.ts:1-4\n```typescript\n\/\/ Renders invoices\./);
    expect(run.stdout).toContain("set ANTHROPIC_API_KEY");
  });

  it("refuses to index a project it was never allowed to, when it cannot ask", async () => {
    const run = await runCli(["ask", "hello"], { cwd: project.root, env });
    expect(run.code).toBe(42);
    expect(run.stderr).toContain("Run `sylk index` in the project, or pass --yes");
  });
});
