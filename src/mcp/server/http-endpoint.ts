import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** The one address served: loopback only, never a network interface. */
export const LOOPBACK = "127.0.0.1";
export const MCP_PATH = "/mcp";
/** Largest request body read; a tool call's arguments are a few hundred bytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The host names a request to a loopback server may carry; any other is a page's DNS rebinding. */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

export interface HttpEndpoint {
  url: string;
  /** The bearer token every request must carry. */
  token: string;
  close(): Promise<void>;
}

/**
 * `sylk mcp serve --http`: streamable HTTP on 127.0.0.1 only. Every request
 * needs `Authorization: Bearer <token>`, a token drawn at start (other
 * users of the machine and its browser's pages reach the port too), and a
 * loopback `Host` and `Origin` (a page whose name resolves to 127.0.0.1
 * must not get in). Each client's session gets a server of its own, as
 * the SDK binds a server to one transport.
 */
export async function startHttpEndpoint(port: number, newServer: () => Server): Promise<HttpEndpoint> {
  const token = randomBytes(32).toString("base64url");
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, -32603, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refusal = refusalOf(request, token);
    if (refusal) return reply(response, refusal.status, -32000, refusal.message, refusal.headers);
    const body = request.method === "POST" ? await readJson(request) : undefined;
    if (body === INVALID) return reply(response, 400, -32700, "Parse error: the body is not JSON (or is too large)");
    const sessionId = request.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(request, response, body);
    if (typeof sessionId === "string") return reply(response, 404, -32001, "Session not found: initialize again");
    if (request.method !== "POST" || !isInitializeRequest(body)) {
      return reply(response, 400, -32000, "Bad request: no session; start with an initialize request");
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(request, response, body);
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, LOOPBACK, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port: bound } = http.address() as AddressInfo;
  return {
    url: `http://${LOOPBACK}:${bound}${MCP_PATH}`,
    token,
    close: () => closeAll(http, sessions),
  };
}

interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Why a request is refused before it reaches the protocol: wrong path, a foreign host or origin, a missing or wrong token. */
function refusalOf(request: IncomingMessage, token: string): Refusal | undefined {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (path !== MCP_PATH) return { status: 404, message: `Not found: the MCP endpoint is ${MCP_PATH}` };
  if (!isLoopbackHost(request.headers.host)) return { status: 403, message: "Forbidden: not a loopback Host header" };
  const origin = request.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) return { status: 403, message: "Forbidden: not a loopback Origin" };
  if (!carriesToken(request.headers.authorization, token)) {
    return { status: 401, message: "Unauthorized: send the token sylk mcp serve printed", headers: { "WWW-Authenticate": "Bearer" } };
  }
  return undefined;
}

function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return LOOPBACK_NAMES.has(name ?? "");
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { hostname } = new URL(origin);
    return LOOPBACK_NAMES.has(hostname);
  } catch {
    return false;
  }
}

function carriesToken(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? "");
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const INVALID = Symbol("invalid body");

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return INVALID;
    chunks.push(buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return INVALID;
  }
}

function reply(response: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "Content-Type": "application/json", ...headers });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

async function closeAll(http: HttpServer, sessions: Map<string, StreamableHTTPServerTransport>): Promise<void> {
  await Promise.all([...sessions.values()].map((transport) => transport.close()));
  sessions.clear();
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    // Streams held open by clients (a GET's event stream) would keep close waiting.
    http.closeAllConnections();
  });
}
