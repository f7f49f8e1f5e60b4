import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVED_KNOWLEDGE_TOOLS, SERVED_TOOLS } from "../../../src/mcp/server/served-tools.js";
import { runCli, startCli, SYLK_BIN } from "../../helpers/run-cli.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";
import { COMMIT_SUBJECT, createServedProject, RECORDED_ANSWER, RECORDED_PROMPT } from "./served-project-fixture.js";

/**
 * The SDK's own client drives `bin/sylk.js mcp serve` over stdio, in a
 * project indexed and recorded by a real `sylk ask`: the tools listed are
 * the agent's read-only ones, each answers from the project's real data,
 * the index follows an edit while serving, stdout carries the protocol
 * alone, and the process ends by itself when stdin closes.
 */
let project: TempProject;
let client: Client;
let serverLog = "";

const WRITE_OR_COMMAND_TOOLS = [
  "write_file",
  "edit_file",
  "run_command",
  "save_knowledge",
  "delete_knowledge",
  "create_skill",
  "run_skill",
];

async function connect(env: NodeJS.ProcessEnv): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SYLK_BIN, "mcp", "serve"],
    cwd: project.root,
    env: { ...env, CI: "true", NO_COLOR: "1" } as Record<string, string>,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    serverLog += chunk.toString();
  });
  const connected = new Client({ name: "sylk-test", version: "1.0.0" });
  await connected.connect(transport);
  return connected;
}

async function call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content.map((block) => block.type)).toEqual(["text"]);
  return { text: content[0]?.text ?? "", isError: result.isError === true };
}

beforeAll(async () => {
  project = await createServedProject();
  client = await connect(project.env);
}, 120_000);

afterAll(async () => {
  await client?.close();
  project?.cleanup();
});

describe("sylk mcp serve over stdio, driven by the SDK's client", () => {
  it("introduces itself and lists exactly the read-only tools, with the agent's schemas, and no write or command tool", async () => {
    expect(client.getServerVersion()?.name).toBe("sylk");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...SERVED_TOOLS].sort());
    for (const name of WRITE_OR_COMMAND_TOOLS) expect(tools.map((tool) => tool.name)).not.toContain(name);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    const search = tools.find((tool) => tool.name === "search_codebase");
    expect(search?.inputSchema).toMatchObject({ type: "object", required: ["query"], additionalProperties: false });
  });

  it("search_codebase and get_symbol_context answer from the project's index", async () => {
    const search = await call("search_codebase", { query: "invoice total discount" });
    expect(search.isError).toBe(false);
    expect(search.text).toContain("src/billing/invoice.ts:");
    expect(search.text).toContain("export function computeInvoiceTotal");
    const symbol = await call("get_symbol_context", { symbol: "computeInvoiceTotal" });
    expect(symbol.isError).toBe(false);
    expect(symbol.text).toContain("## Definition: function computeInvoiceTotal · src/billing/invoice.ts:5-7");
    // Its caller in another file, and what it calls.
    expect(symbol.text).toContain("src/checkout.ts");
    expect(symbol.text).toContain("applyDiscount");
  });

  it("get_turn_range, search_history and retrieve_context bring back the recorded session word for word", async () => {
    const turns = await call("get_turn_range", { from_turn: 0, to_turn: 10 });
    expect(turns.isError).toBe(false);
    expect(turns.text).toContain(RECORDED_PROMPT);
    expect(turns.text).toContain("(read_file)");
    expect(turns.text).toContain(`\n${RECORDED_ANSWER}`);
    const history = await call("search_history", { query: "invoice total computed discounts" });
    expect(history.text).toMatch(/^source: search · [1-9]\d* results/);
    expect(history.text).toContain("entry ");
    const retrieved = await call("retrieve_context", { query: "sums the lines after discounts", max_tokens: 2000 });
    expect(retrieved.isError).toBe(false);
    expect(retrieved.text).toMatch(/entries: [1-9]/);
    expect(retrieved.text).toContain(`\n${RECORDED_ANSWER}`);
  });

  it("get_recent_changes reads the repository's history and what is not committed yet", async () => {
    project.write("src/checkout.ts", `${readFileSync(join(project.root, "src/checkout.ts"), "utf8")}// checked out\n`);
    const changes = await call("get_recent_changes", { path: ".", include_diffs: false });
    expect(changes.isError, changes.text).toBe(false);
    expect(changes.text).toMatch(/^source: git log · /);
    expect(changes.text).toContain(COMMIT_SUBJECT);
    expect(changes.text).toContain("- modified src/checkout.ts");
    // The server has no session of its own to report changes of.
    expect(changes.text).not.toContain("This session's changes");
  });

  it("answers a call that does not match the tool's schema with a correction, as a tool error", async () => {
    const wrong = await call("retrieve_context", { max_tokens: 500 });
    expect(wrong).toEqual({ isError: true, text: expect.stringContaining("Invalid input for retrieve_context") });
    await expect(client.callTool({ name: "write_file", arguments: { path: "x", content: "y" } })).rejects.toThrow(/Unknown tool/);
  });

  it("keeps the index fresh while it serves: a file written now is found by search_codebase", async () => {
    project.write(
      "src/billing/refund.ts",
      "export function issueRefundVoucher(amount: number): string {\n  return `voucher-${amount}`;\n}\n",
    );
    const deadline = Date.now() + 30_000;
    let found = "";
    while (Date.now() < deadline) {
      found = (await call("search_codebase", { query: "issueRefundVoucher" })).text;
      if (found.includes("src/billing/refund.ts")) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found, serverLog).toContain("src/billing/refund.ts:1-3 (issueRefundVoucher)");
  }, 40_000);

  it("offers the knowledge tools that only read when knowledge is on", async () => {
    const withKnowledge = await connect({ ...project.env, SYLK_KNOWLEDGE_ENABLED: "true" });
    try {
      const { tools } = await withKnowledge.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...SERVED_TOOLS, ...SERVED_KNOWLEDGE_TOOLS].sort());
      const result = await withKnowledge.callTool({ name: "search_knowledge", arguments: { query: "invoice" } });
      expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/^source: knowledge · 0 results/);
    } finally {
      await withKnowledge.close();
    }
  }, 30_000);
});

describe("sylk mcp serve's process", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };

  /** Starts the server, initializes it by hand, and resolves with the process and what it wrote. */
  async function started() {
    const child = startCli(["mcp", "serve"], { cwd: project.root, env: project.env });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdin?.write(`${JSON.stringify(initialize)}\n`);
    const deadline = Date.now() + 30_000;
    while (!stdout.includes('"id":1') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return { child, output: () => ({ stdout, stderr }) };
  }

  it("writes only JSON-RPC messages on stdout, and ends by itself, cleanly, when stdin closes", async () => {
    const { child, output } = await started();
    child.stdin?.end();
    const [code] = (await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(() => resolve([null]), 15_000))])) as [
      number | null,
    ];
    if (code === null) child.kill("SIGKILL");
    expect(code, output().stderr).toBe(0);
    const lines = output().stdout.trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { jsonrpc: string; id: number }).id)).toEqual([1, 2]);
    expect(output().stderr).toContain("serving over stdio");
    expect(output().stderr).not.toMatch(/error|Error/);
  }, 40_000);

  it("refuses a project it was never allowed to index, without --yes: a usage error on stderr, nothing on stdout", async () => {
    const stranger = createTempProject({ "src/a.ts": "export const a = 1;\n" });
    try {
      const run = await runCli(["mcp", "serve"], { cwd: stranger.root, env: stranger.env, timeoutMs: 30_000 });
      expect(run.code).toBe(42);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("cannot ask here");
    } finally {
      stranger.cleanup();
    }
  }, 40_000);

  it("ends cleanly on SIGTERM, with the exit code of that signal", async () => {
    const { child, output } = await started();
    child.kill("SIGTERM");
    const [code] = (await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(() => resolve([null]), 15_000))])) as [
      number | null,
    ];
    if (code === null) child.kill("SIGKILL");
    expect(code, output().stderr).toBe(143);
    expect(output().stderr).toContain("terminated; stopping");
    expect(output().stderr).not.toMatch(/Error/);
  }, 40_000);
});
