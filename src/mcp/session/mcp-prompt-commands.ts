import type { McpPromptCommand, McpServers } from "../client/mcp-servers.js";

/**
 * An MCP server's prompts as slash commands, `/mcp__<server>__<prompt> args`:
 * a source of its own that a command menu reads (the TUI's suggestions and
 * `/help`, `sylk ask`), listing the prompts of the servers connected now.
 */
export interface McpSlashCommand {
  /** Without the slash: `mcp__<server>__<prompt>`. */
  name: string;
  usage: string;
  description: string;
  /** The prompt's messages as the text of the user's prompt, its arguments filled from what was typed after the name. */
  expand(typed: string): Promise<string>;
}

export function mcpSlashCommands(servers: McpServers | undefined): McpSlashCommand[] {
  if (!servers) return [];
  return servers.prompts().map((command) => ({
    name: command.command,
    usage: usageOf(command),
    description: `${command.description ?? command.prompt} (a prompt of the MCP server "${command.server}")`,
    expand: (typed) => servers.expandPrompt(command, typed),
  }));
}

/** The command a line starts with, when it is one of these: `/mcp__everything__args-prompt Paris`. */
export function mcpSlashCommandOf(
  line: string,
  commands: readonly McpSlashCommand[],
): { command: McpSlashCommand; typed: string } | undefined {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  const command = match ? commands.find((candidate) => candidate.name === match[1]) : undefined;
  return command ? { command, typed: match?.[2] ?? "" } : undefined;
}

function usageOf(command: McpPromptCommand): string {
  const args = command.arguments.map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`));
  return [`/${command.command}`, ...args].join(" ");
}
