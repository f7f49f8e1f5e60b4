import type { McpServerStatus } from "../../mcp/client/server-connection.js";
import { mcpSlashCommandOf, mcpSlashCommands } from "../../mcp/session/mcp-prompt-commands.js";
import { visible } from "../../format/visible-text.js";
import type { SlashCommandContext } from "./slash-context.js";

/** Tool names `/mcp` lists of a server before it counts the rest. */
const LISTED_TOOLS = 12;

/** `/mcp`: each configured MCP server, its state, its tools and its last error. */
export function mcpCommand(context: SlashCommandContext): void {
  const servers = context.agent.session.mcp?.statuses() ?? [];
  if (servers.length === 0) {
    context.agent.print({
      kind: "note",
      tone: "info",
      text: "No MCP servers are configured. Add one with `sylk mcp add <name> -- <command> [args…]` (or mcpServers in .sylkrc), then start Sylk again.",
    });
    return;
  }
  context.agent.print({ kind: "note", tone: "info", text: servers.map(serverLines).join("\n") });
}

/** What a server said is the server's: shown with its control characters escaped. */
function serverLines(server: McpServerStatus): string {
  const shown = (text: string) => visible(text, { newlines: false });
  const tools = server.tools.map((tool) => shown(tool.name));
  const more = tools.length > LISTED_TOOLS ? `, … ${tools.length - LISTED_TOOLS} more` : "";
  return [
    `${server.name} (${server.transport}): ${STATE_WORDS[server.state]}`,
    ...(tools.length > 0 ? [`  tools (${tools.length}): ${tools.slice(0, LISTED_TOOLS).join(", ")}${more}`] : []),
    ...(server.prompts.length > 0
      ? [`  prompts: ${server.prompts.map((prompt) => `/mcp__${server.name}__${shown(prompt.name)}`).join(", ")}`]
      : []),
    ...(server.error ? [`  last error: ${shown(server.error)}`] : []),
  ].join("\n");
}

const STATE_WORDS: Record<McpServerStatus["state"], string> = {
  connecting: "connecting… (its tools join when it is ready)",
  connected: "connected",
  failed: "failed: the session goes on without its tools",
  closed: "closed",
};

/**
 * `/mcp__<server>__<prompt> args`: the server's prompt, filled in, sent as
 * the user's prompt. False when no connected server offers that prompt.
 */
export async function mcpPromptCommand(line: string, context: SlashCommandContext): Promise<boolean> {
  const found = mcpSlashCommandOf(line, mcpSlashCommands(context.agent.session.mcp));
  if (!found) return false;
  context.agent.submit(await found.command.expand(found.typed));
  return true;
}
