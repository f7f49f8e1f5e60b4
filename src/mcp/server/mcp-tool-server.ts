import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolRegistry } from "../../agent/tools/tool-registry.js";

export interface McpToolServerDeps {
  registry: ToolRegistry;
  /** The project root the tools work in. */
  root: string;
  /** Directories no tool reads (Sylk's own home: every project's conversations). */
  hiddenDirectories: readonly string[];
  version: string;
}

const INSTRUCTIONS =
  "Sylk's whole-repository index and its lossless history of this project's coding sessions. " +
  "search_codebase finds code by meaning and by name; get_symbol_context shows a definition with its callers, callees and tests; " +
  "get_recent_changes reads git history and uncommitted changes; search_history, retrieve_context and get_turn_range bring back " +
  "what was said, run and decided in earlier Sylk sessions, byte for byte. Every tool only reads.";

/**
 * One MCP server (one per connection: the SDK binds a server to one
 * transport) offering the registry's tools. Calls go through the registry,
 * the agent's own chokepoint: arguments checked against the tool's schema,
 * the permission policy, failures answered as results the caller can act
 * on. A failure beneath the tools (the database gone) is a protocol error.
 */
export function createMcpToolServer(deps: McpToolServerDeps): Server {
  const server = new Server(
    { name: "sylk", title: "Sylk", version: deps.version },
    { capabilities: { tools: {}, logging: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(deps.registry) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    if (!deps.registry.names().includes(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const result = await deps.registry.run(
        { id: String(extra.requestId), name, input: input ?? {} },
        { root: deps.root, signal: extra.signal, extraDirectories: [], hiddenDirectories: deps.hiddenDirectories },
      );
      return { content: [{ type: "text", text: result.output }], ...(result.isError ? { isError: true } : {}) };
    } catch (error) {
      throw new McpError(ErrorCode.InternalError, error instanceof Error ? error.message : String(error));
    }
  });
  return server;
}

/** The registry's tools as MCP lists them: the JSON schema the model sees in a session, marked read-only. */
function listedTools(registry: ToolRegistry): Tool[] {
  return registry.specs().map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: { ...spec.inputSchema, type: "object" },
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  }));
}
