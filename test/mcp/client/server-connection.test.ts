import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { CommandProcesses } from "../../../src/agent/tools/command-processes.js";
import type { McpServerConfig } from "../../../src/mcp/mcp-config.js";
import { ServerConnection } from "../../../src/mcp/client/server-connection.js";

/** What an HTTP server that goes wrong makes of a connection: the reason the user reads in /mcp, `sylk status` and stream-json. */
const listening: Server[] = [];
const connections: ServerConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
  for (const server of listening.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

type Handler = (request: IncomingMessage, body: { method?: string; id?: number } | undefined, response: ServerResponse) => void;

/** A loopback HTTP server; each request's method and JSON-RPC method are recorded. */
async function httpServer(handle: Handler): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    request.on("end", () => {
      const body = text ? (JSON.parse(text) as { method?: string; id?: number }) : undefined;
      requests.push(`${request.method} ${body?.method ?? ""}`.trim());
      handle(request, body, response);
    });
  });
  listening.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/mcp`, requests };
}

function connection(config: McpServerConfig, startupTimeoutMs = 10_000): ServerConnection {
  const made = new ServerConnection("remote", config, {
    env: process.env,
    root: process.cwd(),
    processes: new CommandProcesses(),
    startupTimeoutMs,
    toolTimeoutMs: 10_000,
    onChange: () => undefined,
  });
  connections.push(made);
  return made;
}

function json(response: ServerResponse, message: unknown): void {
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(JSON.stringify(message));
}

/** The answer to `initialize` of a server with tools. */
function initialized(id: number | undefined) {
  return {
    jsonrpc: "2.0",
    id,
    result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "test", version: "1.0.0" } },
  };
}

describe("ServerConnection over HTTP", () => {
  it("keeps the start-up timeout as the reason a server failed, not the abort of the request it never answered", async () => {
    // Initializes, then never answers tools/list: the timeout fails the server and closing the transport aborts the request.
    const { url, requests } = await httpServer((request, body, response) => {
      if (body?.method === "initialize") return json(response, initialized(body.id));
      if (request.method === "GET") return response.writeHead(405).end();
      if (body?.method === "tools/list") return;
      response.writeHead(202).end();
    });
    const server = connection({ url }, 1_500);
    await server.start();
    expect(requests).toContain("POST tools/list");
    expect(server.status).toMatchObject({ state: "failed", error: "cannot start: it did not answer within 1.5 s" });
  });

  it("says that a server answering 401 asks for a token Sylk can only send from the headers, without trying the older transport", async () => {
    const { url, requests } = await httpServer((_request, _body, response) => {
      response.writeHead(401, { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer error="invalid_token"' });
      response.end('{"error":"invalid_token","error_description":"Missing Authorization header"}');
    });
    const server = connection({ url });
    await server.start();
    expect(server.status.state).toBe("failed");
    expect(server.status.error).toContain("the server asks for authorization (HTTP 401)");
    expect(server.status.error).toContain('Sylk runs no OAuth sign-in: give it a token in its "headers"');
    expect(server.status.error).toContain("Missing Authorization header");
    expect(requests).toEqual(["POST initialize"]);

    const withToken = connection({ url, headers: { authorization: "Bearer expired" } });
    await withToken.start();
    expect(withToken.status.error).toContain("it refused the Authorization header configured for it");

    const overSse = connection({ type: "sse", url });
    await overSse.start();
    expect(overSse.status.error).toContain("the server asks for authorization (HTTP 401)");
  });

  it("says the same of a server that initializes and answers 401 to the listing of its tools", async () => {
    const { url } = await httpServer((request, body, response) => {
      if (body?.method === "initialize") return json(response, initialized(body.id));
      if (request.method === "GET") return response.writeHead(405).end();
      if (body?.method === "tools/list") {
        response.writeHead(401, { "Content-Type": "application/json", "WWW-Authenticate": 'Bearer scope="mcp:basic"' });
        return response.end('{"error":"invalid_token","error_description":"Missing Authorization header"}');
      }
      response.writeHead(202).end();
    });
    const server = connection({ url });
    await server.start();
    expect(server.status.state).toBe("failed");
    expect(server.status.error).toContain("the server asks for authorization (HTTP 401)");
  });
});
