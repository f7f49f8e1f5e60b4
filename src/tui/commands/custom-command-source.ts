import type { CustomCommands } from "../../commands/custom-commands.js";
import type { SlashCommandSource, SlashCommandSpec } from "./command-list.js";

/** How long the files read once serve the menu: it is drawn on every frame while a "/" is typed. */
const FRESH_MS = 1_000;

/**
 * The custom commands as menu entries (`/frontend:lint <hint>`, the
 * description and where the file is), read again at most once a second, so
 * a file written meanwhile shows up without a restart.
 */
export function customCommandSource(load: () => CustomCommands, now: () => number = Date.now): SlashCommandSource {
  let cached: { at: number; commands: SlashCommandSpec[] } | undefined;
  return {
    commands() {
      if (cached && now() - cached.at < FRESH_MS) return cached.commands;
      const commands = load().commands.map((command) => ({
        name: command.name,
        usage: `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`,
        description: `${command.description} (${command.source === "user" ? "user" : "project"} command)`,
      }));
      cached = { at: now(), commands };
      return commands;
    },
  };
}
