import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CommandProcesses } from "../../../src/agent/tools/command-processes.js";
import { McpServers } from "../../../src/mcp/client/mcp-servers.js";
import { mcpTools } from "../../../src/mcp/session/mcp-tools.js";
import { EVERYTHING_SERVER } from "../mcp-test-servers.js";

/** The servers' life, driven through McpServers against real server processes. */
const CHANGING_SERVER = fileURLToPath(new URL("../fixtures/changing-server.mjs", import.meta.url));
const SETTINGS = { startupTimeoutMs: 20_000, toolTimeoutMs: 20_000, maxOutputTokens: 8_000 };
// Nothing these calls return is large or binary: a sink that stores nothing fails the test if it is used.
const sink = { store: () => Promise.reject(new Error("nothing is stored here")), marker: () => "" };

const opened: McpServers[] = [];
const started: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((servers) => servers.close()));
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

function servers(configs: ConstructorParameters<typeof McpServers>[0], env: NodeJS.ProcessEnv = process.env): McpServers {
  const made = new McpServers(configs, { env, root: process.cwd(), settings: SETTINGS, processes: new CommandProcesses() });
  opened.push(made);
  return made;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

/** server-everything over HTTP (`streamableHttp` or `sse`), once it listens. */
async function everythingOverHttp(transport: "streamableHttp" | "sse"): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  started.push(child);
  await new Promise<void>((resolve, reject) => {
    let said = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (/listening|running/i.test(said)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything ${transport} exited (${code}): ${said}`)));
  });
  return port;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const context = { root: process.cwd(), extraDirectories: [], signal: new AbortController().signal };

describe("McpServers", () => {
  it("reaches a streamable HTTP server with ${VAR} in its url and headers, and calls its tools", async () => {
    const port = await everythingOverHttp("streamableHttp");
    const mcp = servers(
      { web: { url: "http://127.0.0.1:${WEB_PORT}/mcp", headers: { "X-Sylk-Test": "${WEB_TOKEN}" } } },
      {
        ...process.env,
        WEB_PORT: String(port),
        WEB_TOKEN: "t0k",
      },
    );
    await mcp.settled();
    expect(mcp.statuses()[0]).toMatchObject({ name: "web", transport: "http", state: "connected" });
    const echo = mcpTools(mcp, sink).find((tool) => tool.name === "mcp__web__echo");
    expect(await echo?.execute({ message: "over http" }, context)).toMatchObject({ output: "Echo: over http" });
  });

  it("falls back to HTTP+SSE when a server does not speak streamable HTTP", async () => {
    const port = await everythingOverHttp("sse");
    const mcp = servers({ old: { url: `http://127.0.0.1:${port}/sse` } });
    await mcp.settled();
    expect(mcp.statuses()[0]).toMatchObject({ name: "old", state: "connected" });
    expect(mcpTools(mcp, sink).map((tool) => tool.name)).toContain("mcp__old__echo");
  });

  it("lists the tools again on notifications/tools/list_changed, and a server that dies is failed with its last words, told once", async () => {
    const mcp = servers({ changing: { command: process.execPath, args: [CHANGING_SERVER] } });
    await mcp.settled();
    const names = () => mcpTools(mcp, sink).map((tool) => tool.name);
    expect(names()).toEqual(["mcp__changing__grow", "mcp__changing__crash"]);
    expect(mcp.takeNotices()).toEqual([{ server: "changing", state: "connected", tools: 2 }]);

    const grow = mcpTools(mcp, sink).find((tool) => tool.name === "mcp__changing__grow");
    await grow?.execute({}, context);
    await until(() => names().includes("mcp__changing__grown"), "the new tool is listed");

    const crash = mcpTools(mcp, sink).find((tool) => tool.name === "mcp__changing__crash");
    expect(await crash?.execute({}, context)).toMatchObject({ output: "about to crash" });
    await until(() => mcp.statuses()[0]?.state === "failed", "the server is failed");
    expect(names()).toEqual([]);
    const failed = mcp.takeNotices().filter((notice) => notice.state === "failed");
    expect(failed).toEqual([
      { server: "changing", state: "failed", tools: 0, error: expect.stringContaining("fatal: the database went away") },
    ]);
    await expect(crash?.execute({}, context)).rejects.toThrow('the MCP server "changing" is failed');
  });

  it("fails a server that does not answer within the start-up timeout, and the others start anyway", async () => {
    const mcp = new McpServers(
      {
        hung: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] },
        everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
      },
      { env: process.env, root: process.cwd(), settings: { ...SETTINGS, startupTimeoutMs: 1_500 }, processes: new CommandProcesses() },
    );
    opened.push(mcp);
    const start = Date.now();
    await mcp.settled();
    expect(Date.now() - start).toBeLessThan(6_000);
    const [hung, everything] = mcp.statuses();
    expect(hung).toMatchObject({ state: "failed", error: expect.stringContaining("did not answer within 1.5 s") });
    expect(everything).toMatchObject({ state: "connected" });
  });
});
