import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { registerMcpServeCommand } from "./mcp/mcp-serve-command.js";
import { registerMcpAddCommand, registerMcpRemoveCommand } from "./mcp/mcp-edit-commands.js";
import { registerMcpGetCommand, registerMcpListCommand } from "./mcp/mcp-list-commands.js";

/** A subcommand of `sylk mcp`, registered on the group. */
type McpSubcommand = (group: Command, context: CliContext) => void;

/** `sylk mcp <subcommand>`: one row per subcommand. */
const MCP_SUBCOMMANDS: readonly McpSubcommand[] = [
  registerMcpServeCommand,
  registerMcpListCommand,
  registerMcpGetCommand,
  registerMcpAddCommand,
  registerMcpRemoveCommand,
];

/** `sylk mcp`: the MCP servers Sylk uses (`mcpServers` in `.sylkrc`), and `serve`, this project's index and history for other agents. */
export function registerMcpCommand(program: Command, context: CliContext): void {
  const group = program
    .command("mcp")
    .description(
      "MCP: the servers whose tools the agent uses (list, get <name>, add <name> …, remove <name>), and serve, this project's index and history for other agents",
    );
  for (const register of MCP_SUBCOMMANDS) register(group, context);
}
