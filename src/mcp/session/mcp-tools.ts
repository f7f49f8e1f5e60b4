import * as z from "zod";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type ToolDefinition } from "../../agent/tools/tool.js";
import { errorMessage } from "../../errors.js";
import { toolOutputOf, type McpOutputSink } from "./mcp-output.js";
import type { McpServers } from "../client/mcp-servers.js";
import type { ServerConnection } from "../client/server-connection.js";

/** The APIs' limit on a tool's name. */
const MAX_TOOL_NAME = 64;

/** `mcp__<server>__<tool>`, as Claude Code names them, in the characters and length the model APIs accept. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, MAX_TOOL_NAME);
}

/** The input is validated by the server against its own schema; here it must only be an object. */
const anyObject = z.record(z.string(), z.unknown());

export interface McpToolSettings {
  maxOutputTokens: number;
  sink: McpOutputSink;
}

/**
 * The connected servers' tools, as the registry lists them at each model
 * request (`ToolRegistry`'s dynamic source). A name two tools share once
 * cut or cleaned goes to the first.
 */
export function mcpTools(servers: McpServers, sink: McpOutputSink): ToolDefinition[] {
  const taken = new Set<string>();
  const settings = { maxOutputTokens: servers.settings.maxOutputTokens, sink };
  return servers.connected().flatMap((connection) => toolsOf(connection, settings, taken));
}

/**
 * A server's tools as Sylk tools of kind `mcp`: the model sees the server's
 * description and JSON schema, the permission policy judges each call with
 * the server's name, and the result is bounded by `toolOutputOf`.
 */
function toolsOf(connection: ServerConnection, settings: McpToolSettings, taken: Set<string>): ToolDefinition[] {
  const server = connection.name;
  const definitions: ToolDefinition[] = [];
  for (const tool of connection.status.tools) {
    const name = mcpToolName(server, tool.name);
    if (taken.has(name)) continue;
    taken.add(name);
    definitions.push(definitionOf(connection, tool, name, settings));
  }
  return definitions;
}

function definitionOf(connection: ServerConnection, tool: Tool, name: string, settings: McpToolSettings): ToolDefinition<typeof anyObject> {
  const server = connection.name;
  const title = tool.annotations?.title ?? tool.title;
  return {
    name,
    description: `${tool.description ?? title ?? tool.name} (a tool of the MCP server "${server}")`,
    schema: anyObject,
    inputSchema: { ...tool.inputSchema, type: "object" },
    kind: "mcp",
    targets: () => ({ mcpServer: server }),
    async execute(input, context) {
      let result: CallToolResult;
      try {
        result = await connection.callTool(tool.name, input, context.signal);
      } catch (error) {
        throw new ToolError(`${name} failed: ${errorMessage(error)}`);
      }
      return toolOutputOf(result, { toolName: name, server, maxTokens: settings.maxOutputTokens, sink: settings.sink });
    },
  };
}
