import { isMemoryNote, PIPELINE_TASK } from "./command-list.js";
import { runSlashCommand } from "./slash-commands.js";
import type { SlashCommandContext } from "./slash-context.js";

/** An MCP server's prompt as a command: `/mcp__<server>__<prompt> args`. */
const MCP_PROMPT = /^\/mcp__\S/;

/** One line the user sent: a note for memory, a slash command, or a prompt for the agent. */
export function submitLine(text: string, context: SlashCommandContext): void {
  const { agent } = context;
  const line = text.trim();
  // `# always use pnpm`: a note kept in memory, as users of other agents expect; it is not sent to the model.
  if (isMemoryNote(text)) {
    agent.print({ kind: "user", text: line });
    void runSlashCommand(`/memory add ${line.replace(/^#\s*/, "")}`, context);
    return;
  }
  // A pipeline task runs like a prompt, whose line the run prints itself.
  // A custom command is a prompt the session expands; an MCP server's prompt is filled in here, from the screen's servers.
  const { menu } = context;
  const customCommand = menu.namesSourceCommand(text) && !MCP_PROMPT.test(line);
  if (!menu.isSlashCommand(text) || customCommand || PIPELINE_TASK.test(line)) return agent.submit(line);
  agent.print({ kind: "user", text: line });
  void runSlashCommand(text, context);
}
