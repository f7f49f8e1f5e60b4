import { useMemo } from "react";
import type { ScreenReadModel } from "../../app/screen-read-model.js";
import type { McpServers } from "../../mcp/client/mcp-servers.js";
import { mcpSlashCommands } from "../../mcp/session/mcp-prompt-commands.js";
import { SlashCommandMenu } from "../commands/command-list.js";
import { customCommandSource } from "../commands/custom-command-source.js";

/**
 * The slash commands the prompt offers: the built-ins, the custom commands'
 * files, and the prompts of the MCP servers, which are the screen's and
 * shared by every conversation it opens.
 */
export function useCommandMenu(project: Pick<ScreenReadModel, "customCommands">, mcpServers: McpServers | undefined): SlashCommandMenu {
  return useMemo(
    () => new SlashCommandMenu([customCommandSource(() => project.customCommands()), { commands: () => mcpSlashCommands(mcpServers) }]),
    [project, mcpServers],
  );
}
