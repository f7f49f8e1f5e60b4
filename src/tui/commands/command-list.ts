/** The slash commands, as /help and the prompt's suggestions list them. */
export interface SlashCommandSpec {
  name: string;
  usage: string;
  description: string;
}

export const SLASH_COMMANDS: readonly SlashCommandSpec[] = [
  { name: "help", usage: "/help", description: "commands and keys" },
  { name: "search", usage: "/search <query>", description: "search the code index (like sylk search)" },
  { name: "index", usage: "/index", description: "refresh the index now" },
  { name: "sessions", usage: "/sessions", description: "this project's sessions, newest first" },
  { name: "resume", usage: "/resume <id>", description: "continue a session (its id, or the first characters)" },
  { name: "model", usage: "/model", description: "the model in use" },
  { name: "refs", usage: "/refs", description: "context references: what left the window, and what stands for it" },
  { name: "retrieve", usage: "/retrieve <ref>", description: "show what a context reference stands for, byte for byte" },
  { name: "cost", usage: "/cost", description: "tokens this session used" },
  { name: "clear", usage: "/clear", description: "clear the screen and start a new session" },
  { name: "exit", usage: "/exit", description: "quit (also Ctrl-C twice, or Ctrl-D on an empty prompt)" },
];

/** Names that run a command without being listed. */
const ALIASES = new Set(["quit"]);

/** Commands whose name starts with what was typed after "/" (nothing once arguments begin). */
export function matchingCommands(input: string): SlashCommandSpec[] {
  const match = /^\/(\S*)$/.exec(input);
  if (!match) return [];
  return SLASH_COMMANDS.filter((command) => command.name.startsWith(match[1] ?? ""));
}

/**
 * Whether a line is a slash command. A known name is, and so is any other
 * plain word (an unknown one is reported: a typo should not cost a model
 * call). A first word that looks like a path (`/usr/lib/foo crashes`) makes
 * the line a prompt about that path.
 */
export function isSlashCommand(line: string): boolean {
  const name = /^\/(\S*)/.exec(line)?.[1];
  if (name === undefined) return false;
  return isKnownCommand(name) || /^[\w-]*$/.test(name);
}

function isKnownCommand(name: string): boolean {
  return ALIASES.has(name) || SLASH_COMMANDS.some((command) => command.name === name);
}

/** The keys, as /help lists them. */
export const HELP_KEYS: ReadonlyArray<[string, string]> = [
  ["Enter", "send (while a turn runs, the prompt waits in a queue)"],
  ["\\ then Enter", "new line (also Alt+Enter, Ctrl+J, or Shift+Enter where the terminal reports it)"],
  ["paste", "pasted text keeps its line breaks and is not sent until Enter"],
  ["↑ / ↓", "previous / next prompt (moves between lines in a multi-line prompt)"],
  ["← → Ctrl+A Ctrl+E", "move; Ctrl+U / Ctrl+K / Ctrl+W delete to line start / end / a word"],
  ["Tab", "complete a slash command"],
  ["Esc or Ctrl+C", "cancel the running turn (Ctrl+C on a prompt clears it)"],
  ["Ctrl+C twice, Ctrl+D", "exit"],
  ["approvals", "↑/↓ and Enter, or 1 allow once · 2 allow for this session · 3 deny (Esc)"],
];
