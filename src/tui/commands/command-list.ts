/** The slash commands, as /help and the prompt's suggestions list them. */
export interface SlashCommandSpec {
  name: string;
  usage: string;
  description: string;
}

/**
 * Where the menu's commands come from besides the built-ins: the custom
 * commands' files, an MCP server's prompts. Asked each time the menu is
 * drawn or a line is sent, so a source answers from what it holds now.
 */
export interface SlashCommandSource {
  commands(): readonly SlashCommandSpec[];
}

export const SLASH_COMMANDS: readonly SlashCommandSpec[] = [
  { name: "help", usage: "/help", description: "commands and keys" },
  { name: "search", usage: "/search <query>", description: "search the code index (like sylk search)" },
  { name: "index", usage: "/index", description: "refresh the index now" },
  { name: "sessions", usage: "/sessions", description: "this project's sessions, newest first" },
  { name: "resume", usage: "/resume <id>", description: "continue a session (its id, or the first characters)" },
  { name: "model", usage: "/model [name]", description: "the model in use, or go on with another" },
  { name: "refs", usage: "/refs", description: "context references: what left the window, and what stands for it" },
  { name: "retrieve", usage: "/retrieve <ref>", description: "show what a context reference stands for, byte for byte" },
  { name: "undo", usage: "/undo [force]", description: "take back the file edits of the last prompt" },
  {
    name: "rewind",
    usage: "/rewind [prompt]",
    description: "list edits by prompt, or take back every edit after a prompt (numbered from 1)",
  },
  { name: "diff", usage: "/diff", description: "what this session's edits changed" },
  { name: "evict", usage: "/evict", description: "move older turns out of the window now (references bring them back)" },
  {
    name: "handoff",
    usage: "/handoff",
    description: "hand the work to a fresh instance of the agent now (prompt, tasks and files go along)",
  },
  { name: "learning", usage: "/learning", description: "what self-tuning retrieval learned in this project" },
  {
    name: "pipeline",
    usage: "/pipeline <task>",
    description: "the team takes a task: plan, design, implement, review and fix, test, summary",
  },
  {
    name: "memory",
    usage: "/memory [list|search|add|rm|answer]",
    description: "what Sylk keeps across sessions, and the questions it has for you (# text keeps a note)",
  },
  { name: "status", usage: "/status", description: "model, agent, permission mode, sandbox, index, the window and the cost so far" },
  {
    name: "doctor",
    usage: "/doctor",
    description: "check the sandbox, Node, the index, the model and the configuration (like sylk doctor)",
  },
  { name: "config", usage: "/config", description: "the settings in effect, where each came from, and how to change them" },
  {
    name: "permissions",
    usage: "/permissions [allow|ask|deny <rule> | mode <mode> | reset]",
    description: "what may run without asking, and rules for this session",
  },
  {
    name: "init",
    usage: "/init",
    description: "write an AGENTS.md from the index: languages, build and test commands, layout (never over one)",
  },
  {
    name: "mcp",
    usage: "/mcp",
    description: "the MCP servers: each one's state, tools and last error (their prompts are /mcp__<server>__<prompt>)",
  },
  { name: "cost", usage: "/cost", description: "tokens this session used, and an estimate in dollars" },
  { name: "clear", usage: "/clear", description: "clear the screen and start a new session" },
  { name: "exit", usage: "/exit", description: "quit (also Ctrl-C twice, or Ctrl-D on an empty prompt)" },
];

/** Names that run a command without being listed. */
const ALIASES = new Set(["quit"]);

/** Tab's place in the commands that matched what was typed before the first Tab. */
export interface CompletionCycle {
  readonly prefix: string;
  readonly index: number;
}

/**
 * The slash commands the prompt offers: the built-ins, then each source's
 * in order. A built-in always wins: a command of a source that takes a
 * built-in's name (or an earlier source's) is left out of the menu and is
 * never run in its place.
 */
export class SlashCommandMenu {
  constructor(private readonly sources: readonly SlashCommandSource[] = []) {}

  /** Every command, built-ins first. */
  all(): SlashCommandSpec[] {
    const taken = new Set([...ALIASES, ...SLASH_COMMANDS.map((command) => command.name)]);
    const added = this.sources.flatMap((source) =>
      source.commands().filter((command) => {
        if (taken.has(command.name)) return false;
        taken.add(command.name);
        return true;
      }),
    );
    return [...SLASH_COMMANDS, ...added];
  }

  /** A command the screen runs itself (the others are prompts). */
  isBuiltin(name: string): boolean {
    return ALIASES.has(name) || SLASH_COMMANDS.some((command) => command.name === name);
  }

  /** The line names a command of a source, not a built-in one: it goes to the session as a prompt. */
  namesSourceCommand(line: string): boolean {
    const name = /^\/(\S+)/.exec(line.trim())?.[1];
    return name !== undefined && !this.isBuiltin(name) && this.all().some((command) => command.name === name);
  }

  /** Commands whose name starts with what was typed after "/" (nothing once arguments begin), in alphabetical order. */
  matching(input: string): SlashCommandSpec[] {
    const match = /^\/(\S*)$/.exec(input);
    return match ? this.startingWith(match[1] ?? "") : [];
  }

  /**
   * Whether a line is a slash command. A known name is, and so is any other
   * plain word (an unknown one is reported: a typo should not cost a model
   * call). A first word that looks like a path (`/usr/lib/foo crashes`) makes
   * the line a prompt about that path.
   */
  isSlashCommand(line: string): boolean {
    const name = /^\/(\S*)/.exec(line)?.[1];
    if (name === undefined) return false;
    return this.isBuiltin(name) || this.all().some((command) => command.name === name) || /^[\w-]*$/.test(name);
  }

  /**
   * Tab: the first command matching the typed "/prefix"; Tab again (the prompt
   * still showing that completion) the next one, wrapping. (Shift+Tab is the
   * permission mode's.)
   */
  complete(text: string, cycle: CompletionCycle | undefined): { text: string; cycle: CompletionCycle } | undefined {
    const matches = (prefix: string) => this.startingWith(prefix);
    const continuing = cycle !== undefined && text === completionText(matches(cycle.prefix), cycle);
    const prefix = continuing ? cycle.prefix : /^\/(\S*)$/.exec(text)?.[1];
    if (prefix === undefined) return undefined;
    const found = matches(prefix);
    if (found.length === 0) return undefined;
    const index = continuing ? (cycle.index + 1) % found.length : 0;
    return { text: `/${(found[index] as SlashCommandSpec).name} `, cycle: { prefix, index } };
  }

  /** The commands a completion cycle goes through, for the suggestions list. */
  cycleCommands(cycle: CompletionCycle): SlashCommandSpec[] {
    return this.startingWith(cycle.prefix);
  }

  private startingWith(prefix: string): SlashCommandSpec[] {
    return this.all()
      .filter((command) => command.name.startsWith(prefix))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

function completionText(matches: readonly SlashCommandSpec[], cycle: CompletionCycle): string | undefined {
  const command = matches[cycle.index];
  return command ? `/${command.name} ` : undefined;
}

/** The keys, as /help lists them. */
export const HELP_KEYS: ReadonlyArray<[string, string]> = [
  ["Enter", "send (while a turn runs, the prompt waits in a queue)"],
  ["\\ then Enter", "new line (also Alt+Enter, Ctrl+J, or Shift+Enter where the terminal reports it)"],
  [
    "paste",
    "pasted text keeps its line breaks and is not sent until Enter; more than 10 lines or 1,000 characters show as [Pasted text #1 +N lines] (Backspace removes it whole), the full text is sent",
  ],
  ["↑ / ↓", "previous / next prompt, this project's earlier sessions included (moves between lines in a multi-line prompt)"],
  ["Ctrl+R", "search earlier prompts: type to narrow, Ctrl+R again for an older match, Enter or → to use it, Esc or Ctrl+G to cancel"],
  ["← → Ctrl+A Ctrl+E", "move; Ctrl+U / Ctrl+K / Ctrl+W delete to line start / end / a word"],
  ["Tab", "complete a slash command; Tab again for the next match"],
  ["Esc or Ctrl+C", "cancel the running turn (Ctrl+C on a prompt clears it)"],
  ["@path", "attach a file, or @name a definition, to the prompt (Tab completes from the index)"],
  ["!command", "run a command yourself (sandboxed); its output goes into the conversation"],
  ["Ctrl+O", "transcript view: every tool call's whole output (again: compact)"],
  ["Shift+Tab", "next permission mode: default → accept-edits → plan"],
  ["Ctrl+C twice, Ctrl+D", "exit (on an empty prompt)"],
  ["approvals", "↑/↓ and Enter, or 1 allow once · 2 allow for this session · 3 deny (Esc)"],
];

/** `/pipeline <task>`: a task for the team's pipeline, which runs (or queues) like a prompt rather than as a command. */
export const PIPELINE_TASK = /^\/pipeline\s+(?=\S)/;

/** `# text`: a note to keep in memory (a line that is only `#`s, or a Markdown heading of a pasted document, is not). */
export function isMemoryNote(line: string): boolean {
  return /^#\s+\S/.test(line.trim()) && !line.includes("\n");
}
