import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { registerMcpServeCommand } from "./mcp/mcp-serve-command.js";

/** A subcommand of `sylk mcp`, registered on the group. */
type McpSubcommand = (group: Command, context: CliContext) => void;

/** `sylk mcp <subcommand>`: one row per subcommand. */
const MCP_SUBCOMMANDS: readonly McpSubcommand[] = [registerMcpServeCommand];

/** `sylk mcp`: Model Context Protocol; `serve` offers this project's index and history to other agents. */
export function registerMcpCommand(program: Command, context: CliContext): void {
  const group = program.command("mcp").description("Model Context Protocol: serve this project's index and history to other agents");
  for (const register of MCP_SUBCOMMANDS) register(group, context);
}
