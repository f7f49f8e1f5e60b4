import { resolve } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, GetPromptResult, Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import { expandServerConfig, isStdioServer, type HttpServerConfig, type McpServerConfig } from "../mcp-config.js";
import { errorMessage } from "../../errors.js";
import type { ProcessGroups } from "./process-group-transport.js";

type Sdk = typeof import("./mcp-sdk.js");

export type McpServerState = "connecting" | "connected" | "failed" | "closed";

/** What `/mcp`, `sylk status` and the `init` event show of a server. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  state: McpServerState;
  tools: Tool[];
  prompts: Prompt[];
  /** Why it failed, or the last thing that went wrong. */
  error?: string;
}

export interface ServerConnectionDeps {
  /** The user's environment: `${VAR}` is read from it. */
  env: NodeJS.ProcessEnv;
  /** A stdio server's `cwd` is relative to the project root. */
  root: string;
  processes: ProcessGroups;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  /** The server's state, tools or prompts changed. */
  onChange: (connection: ServerConnection) => void;
}

const CLIENT_INFO = { name: "sylk", version: "0.1.0" };
/** The stderr lines of a stdio server kept to explain a failure. */
const STDERR_LINES = 5;

/** One MCP server: connects, lists, calls, and says how it is. */
export class ServerConnection {
  private client: Client | undefined;
  private transportInUse: Transport | undefined;
  private current: McpServerStatus;
  private readonly stderr: string[] = [];
  private closing = false;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly deps: ServerConnectionDeps,
  ) {
    const transport = isStdioServer(config) ? "stdio" : config.type === "sse" ? "sse" : "http";
    this.current = { name, transport, state: "connecting", tools: [], prompts: [] };
  }

  get status(): McpServerStatus {
    return this.current;
  }

  /** Connects and lists; never throws: a failure is the server's state and error. */
  async start(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`it did not answer within ${this.deps.startupTimeoutMs / 1000} s`)),
        this.deps.startupTimeoutMs,
      );
    });
    try {
      await Promise.race([this.connectAndList(), timeout]);
      if (this.closing) return;
      this.update({ state: "connected" });
    } catch (error) {
      await this.fail(`cannot start: ${errorMessage(await this.explained(error))}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const client = this.connectedClient();
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: this.deps.toolTimeoutMs });
    return result as CallToolResult;
  }

  async getPrompt(prompt: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.connectedClient().getPrompt({ name: prompt, arguments: args });
  }

  async close(): Promise<void> {
    this.closing = true;
    const transport = this.transportInUse;
    this.client = undefined;
    this.transportInUse = undefined;
    if (this.current.state !== "failed") this.update({ state: "closed" });
    await transport?.close().catch(() => undefined);
  }

  private connectedClient(): Client {
    if (!this.client || this.current.state !== "connected") {
      throw new Error(`the MCP server "${this.name}" is ${this.current.state}${this.current.error ? ` (${this.current.error})` : ""}`);
    }
    return this.client;
  }

  private async connectAndList(): Promise<void> {
    const expanded = expandServerConfig(this.config, this.deps.env);
    if (!expanded.ok)
      throw new Error(
        `the environment variable${expanded.missing.length > 1 ? "s" : ""} ${expanded.missing.join(", ")} ${expanded.missing.length > 1 ? "are" : "is"} not set`,
      );
    const config = expanded.value;
    const sdk = await import("./mcp-sdk.js");
    const client = isStdioServer(config)
      ? await this.connect(
          sdk,
          new sdk.ProcessGroupTransport({
            command: config.command,
            args: config.args ?? [],
            env: config.env ?? {},
            cwd: resolve(this.deps.root, config.cwd ?? "."),
            processes: this.deps.processes,
            onStderr: (line) => this.stderrLine(line),
          }),
        )
      : await this.connectOverHttp(sdk, config);
    if (this.closing) return;
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.refresh("tools"));
    client.setNotificationHandler(sdk.PromptListChangedNotificationSchema, () => this.refresh("prompts"));
    const capabilities = client.getServerCapabilities() ?? {};
    this.current = {
      ...this.current,
      tools: capabilities.tools ? await listAll((cursor) => client.listTools(cursor ? { cursor } : {}), "tools") : [],
      prompts: capabilities.prompts ? await listAll((cursor) => client.listPrompts(cursor ? { cursor } : {}), "prompts") : [],
    };
  }

  /** Streamable HTTP first; a server that refuses it (an older one) is asked over HTTP+SSE. */
  private async connectOverHttp(sdk: Sdk, config: HttpServerConfig): Promise<Client> {
    const url = new URL(config.url);
    const requestInit = { headers: config.headers ?? {} };
    if (config.type === "sse") return this.connect(sdk, new sdk.SSEClientTransport(url, { requestInit }));
    try {
      return await this.connect(sdk, new sdk.StreamableHTTPClientTransport(url, { requestInit }));
    } catch (error) {
      // A server that asks for a token speaks streamable HTTP: the older transport would be refused the same way.
      if (this.closing || asksForAuthorization(sdk, error)) throw error;
      try {
        return await this.connect(sdk, new sdk.SSEClientTransport(url, { requestInit }));
      } catch {
        throw error;
      }
    }
  }

  /** Why the server could not start, as the user can act on it: a 401, at connecting or at the first listing, says where a token goes. */
  private async explained(error: unknown): Promise<unknown> {
    // Only the SDK's transports answer a status code; the module is loaded already when one did.
    if (isStdioServer(this.config) || (error as { code?: unknown } | undefined)?.code !== 401) return error;
    const sdk = await import("./mcp-sdk.js");
    return asksForAuthorization(sdk, error) ? unauthorized(this.config, error) : error;
  }

  private async connect(sdk: Sdk, transport: Transport): Promise<Client> {
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    client.onerror = (error) => {
      // Closing the transport of a failed or closed connection aborts what was in flight ("This operation was
      // aborted"): that is the teardown speaking, and the reason it failed must stay the one the user reads.
      if (this.closing || this.current.state === "failed") return;
      this.current = { ...this.current, error: errorMessage(error) };
    };
    client.onclose = () => void this.lost(client);
    this.transportInUse = transport;
    try {
      await client.connect(transport);
    } catch (error) {
      client.onclose = undefined;
      await transport.close().catch(() => undefined);
      throw error;
    }
    this.client = client;
    return client;
  }

  /** The connection ended without Sylk closing it: the server crashed or hung up. */
  private async lost(client: Client): Promise<void> {
    if (this.closing || this.client !== client) return;
    this.client = undefined;
    await this.fail(`stopped: ${this.current.error ?? "the connection closed"}`);
  }

  private async fail(reason: string): Promise<void> {
    const said = this.stderr.length > 0 ? `${reason}; its last output: ${this.stderr.join(" | ")}` : reason;
    const transport = this.transportInUse;
    this.transportInUse = undefined;
    this.client = undefined;
    this.update({ state: "failed", error: said, tools: [], prompts: [] });
    await transport?.close().catch(() => undefined);
  }

  private async refresh(what: "tools" | "prompts"): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      if (what === "tools") this.update({ tools: await listAll((cursor) => client.listTools(cursor ? { cursor } : {}), "tools") });
      else this.update({ prompts: await listAll((cursor) => client.listPrompts(cursor ? { cursor } : {}), "prompts") });
    } catch (error) {
      this.update({ error: `listing its ${what} again failed: ${errorMessage(error)}` });
    }
  }

  private stderrLine(line: string): void {
    this.stderr.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    if (this.stderr.length > STDERR_LINES) this.stderr.shift();
  }

  private update(change: Partial<McpServerStatus>): void {
    this.current = { ...this.current, ...change };
    this.deps.onChange(this);
  }
}

function asksForAuthorization(sdk: Sdk, error: unknown): error is Error {
  return (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError) && error.code === 401;
}

/**
 * A 401 as the user can act on it: Sylk sends the headers configured for the
 * server and runs no OAuth sign-in, so the way in is a token in `headers`
 * (or one that the server accepts, if the configured one was refused).
 */
function unauthorized(config: HttpServerConfig, error: Error): Error {
  const sent = Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === "authorization");
  const remedy = sent
    ? "it refused the Authorization header configured for it"
    : 'Sylk runs no OAuth sign-in: give it a token in its "headers" ("Authorization": "Bearer <token>")';
  return new Error(`the server asks for authorization (HTTP 401); ${remedy}. It said: ${error.message}`);
}

/** Every page of a paginated listing. */
async function listAll<K extends "tools" | "prompts", T>(
  page: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined } & Record<K, T[]>>,
  key: K,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const result = await page(cursor);
    items.push(...result[key]);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return items;
}
