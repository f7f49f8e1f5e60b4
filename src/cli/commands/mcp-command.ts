import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { registerMcpAddCommand, registerMcpRemoveCommand } from "./mcp/mcp-edit-commands.js";
import { registerMcpGetCommand, registerMcpListCommand } from "./mcp/mcp-list-commands.js";

/** A subcommand of `sylk mcp`, registered on the group. */
type McpSubcommand = (group: Command, context: CliContext) => void;

/** `sylk mcp <subcommand>`: one row per subcommand. */
const MCP_SUBCOMMANDS: readonly McpSubcommand[] = [
  registerMcpListCommand,
  registerMcpGetCommand,
  registerMcpAddCommand,
  registerMcpRemoveCommand,
];

/** `sylk mcp`: the MCP servers Sylk uses (`mcpServers` in `.sylkrc`). */
export function registerMcpCommand(program: Command, context: CliContext): void {
  const group = program
    .command("mcp")
    .description("the MCP servers whose tools the agent uses: list, get <name>, add <name> …, remove <name>");
  for (const register of MCP_SUBCOMMANDS) register(group, context);
}
