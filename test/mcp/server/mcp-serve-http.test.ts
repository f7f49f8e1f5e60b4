import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { connect } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVED_TOOLS } from "../../../src/mcp/server/served-tools.js";
import { startCli } from "../../helpers/run-cli.js";
import type { TempProject } from "../../helpers/temp-project.js";
import { createServedProject } from "./served-project-fixture.js";

/**
 * `sylk mcp serve --http 0`: streamable HTTP on 127.0.0.1 only, a bearer
 * token printed at start, refused without it (and for a foreign Host),
 * and the SDK's client working with it.
 */
let project: TempProject;
let server: ChildProcess;
let stderr = "";
let endpoint: URL;
let token: string;

beforeAll(async () => {
  project = await createServedProject();
  server = startCli(["mcp", "serve", "--http", "0"], { cwd: project.root, env: project.env });
  server.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let stdout = "";
  server.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const deadline = Date.now() + 30_000;
  while (!/Authorization: Bearer \S+\n/.test(stdout) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const url = /^MCP endpoint: (\S+)$/m.exec(stdout)?.[1];
  const bearer = /^Authorization: Bearer (\S+)$/m.exec(stdout)?.[1];
  if (!url || !bearer) throw new Error(`no endpoint printed; stdout: ${stdout}; stderr: ${stderr}`);
  endpoint = new URL(url);
  token = bearer;
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
  project?.cleanup();
});

/** One raw POST to the endpoint, with the headers given. */
function post(headers: Record<string, string>): Promise<{ status: number; body: string; authenticate?: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
  return new Promise((resolve, reject) => {
    const sent = request(
      endpoint,
      { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers } },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text,
            ...(response.headers["www-authenticate"] ? { authenticate: String(response.headers["www-authenticate"]) } : {}),
          }),
        );
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

describe("sylk mcp serve --http", () => {
  it("serves on 127.0.0.1 at the port it printed, and nowhere else: another loopback address is refused", async () => {
    expect(endpoint.hostname).toBe("127.0.0.1");
    expect(endpoint.pathname).toBe("/mcp");
    // Bound to 0.0.0.0 it would answer on 127.0.0.2 too (Linux routes all of 127/8 to the loopback interface).
    if (process.platform === "linux") {
      const refused = await new Promise<string>((resolve) => {
        const socket = connect({ host: "127.0.0.2", port: Number(endpoint.port) });
        socket.once("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      expect(refused).toBe("ECONNREFUSED");
    }
  });

  it("refuses a request without the token, or with another, with 401 and a Bearer challenge", async () => {
    const without = await post({});
    expect(without.status).toBe(401);
    expect(without.authenticate).toBe("Bearer");
    expect((await post({ Authorization: `Bearer ${token.slice(1)}x` })).status).toBe(401);
    expect((await post({ Authorization: token })).status).toBe(401);
  });

  it("refuses a page's DNS rebinding: a foreign Host or Origin is forbidden even with the token", async () => {
    expect((await post({ Authorization: `Bearer ${token}`, Host: "evil.example.com" })).status).toBe(403);
    expect((await post({ Authorization: `Bearer ${token}`, Origin: "http://evil.example.com" })).status).toBe(403);
  });

  it("answers the SDK's client that sends the token: the read-only tools, and a search of the project", async () => {
    const client = new Client({ name: "sylk-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...SERVED_TOOLS].sort());
      const result = await client.callTool({ name: "search_codebase", arguments: { query: "invoice total discount" } });
      expect((result.content as Array<{ text: string }>)[0]?.text).toContain("src/billing/invoice.ts:");
    } finally {
      await client.close();
    }
  });

  it("ends cleanly on SIGTERM", async () => {
    server.kill("SIGTERM");
    const [code] = (await once(server, "exit")) as [number | null];
    expect(code, stderr).toBe(143);
    expect(stderr).not.toMatch(/Error/);
  });
});
