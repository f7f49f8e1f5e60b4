import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import { registerMcpServeCommand } from "./mcp-serve-command.js";

/** Registers one subcommand of `sylk mcp` on the group. */
type McpSubcommand = (group: Command, context: CliContext) => void;

/** The subcommands of `sylk mcp`, each in a module of its own: a new one is a line here. */
const MCP_SUBCOMMANDS: readonly McpSubcommand[] = [registerMcpServeCommand];

/** `sylk mcp …`: Model Context Protocol, Sylk's side of it. */
export function registerMcpCommand(program: Command, context: CliContext): void {
  const group = program.command("mcp").description("Model Context Protocol: serve this project's index and history to other agents");
  for (const register of MCP_SUBCOMMANDS) register(group, context);
}
