import { CommandProcesses } from "../../agent/tools/command-processes.js";
import type { SylkConfig } from "../../config/schema.js";
import { McpServers } from "../client/mcp-servers.js";
import type { McpServerStatus } from "../client/server-connection.js";

/**
 * The configured MCP servers, every one starting now, in the background
 * (undefined when none is configured). The front end that calls this owns
 * them: it hands them to the sessions it opens and closes them when it ends.
 */
export function startMcpServers(config: SylkConfig, env: NodeJS.ProcessEnv, root: string): McpServers | undefined {
  const servers = configuredMcpServers(config, env, root);
  servers?.start();
  return servers;
}

/**
 * The configured MCP servers, not started yet: the TUI starts them once its
 * first frame is drawn, so that loading the SDK does not delay the screen.
 */
export function configuredMcpServers(config: SylkConfig, env: NodeJS.ProcessEnv, root: string): McpServers | undefined {
  if (Object.keys(config.mcpServers).length === 0) return undefined;
  // Their own registry of process groups: the servers live as long as the front end, across its conversations.
  return new McpServers(config.mcpServers, { env, root, settings: config.mcp, processes: new CommandProcesses() });
}

/** A server as `sylk status` and the `init` event of `stream-json` list it. */
export interface McpServerSummary {
  name: string;
  transport: string;
  state: string;
  tools: number;
  error?: string;
}

export function serverSummary(status: McpServerStatus): McpServerSummary {
  return {
    name: status.name,
    transport: status.transport,
    state: status.state,
    tools: status.tools.length,
    ...(status.error ? { error: status.error } : {}),
  };
}

/** Each configured server connected to once (in parallel, each within its start-up timeout) and closed again: `sylk status`. */
export async function checkMcpServers(config: SylkConfig, env: NodeJS.ProcessEnv, root: string): Promise<McpServerSummary[]> {
  const servers = startMcpServers(config, env, root);
  if (!servers) return [];
  try {
    await servers.settled();
    return servers.statuses().map(serverSummary);
  } finally {
    await servers.close();
  }
}
