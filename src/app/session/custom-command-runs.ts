import {
  type CommandFileError,
  type CustomCommandDirectories,
  invokedCommand,
  loadCustomCommands,
} from "../../commands/custom-commands.js";
import { expandCommand } from "../../commands/expand-command.js";
import { trustGatedProjectSettings } from "../../config/config-file.js";
import { trustVerdict } from "../../config/trust-gated-keys.js";
import { FolderTrustStore } from "../../project/folder-trust.js";

/** What a line naming a custom command runs: the expanded prompt, and what the command changes for that run. */
export interface PreparedCommand {
  prompt: string;
  /** The model that answers it, when the command names one. */
  model?: string;
  /** Allow rules for this run only (empty when the command's list is not honoured). */
  allowedTools: string[];
  /** What the user should hear before the run. */
  notices: Array<{ kind: string; message: string }>;
}

/**
 * A root session's custom slash commands: read again at each use (an edited
 * file applies at once), expanded, and judged for trust. A project file's
 * `allowed-tools` widen what runs without asking, so they count only in a
 * folder the user trusts, as its `.sylkrc` stands (trust given for other
 * settings, or recorded without them, vouches for nothing, as it does for
 * the settings themselves); elsewhere the command runs with the session's
 * own permissions, and the user is told once per command.
 */
export class CustomCommandRuns {
  private readonly told = new Set<string>();

  constructor(
    private readonly directories: CustomCommandDirectories,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  prepare(line: string): PreparedCommand | undefined {
    if (!line.trimStart().startsWith("/")) return undefined;
    const loaded = loadCustomCommands(this.directories);
    const invoked = invokedCommand(line, loaded.commands);
    if (!invoked) return this.unloaded(line, loaded.errors);
    const { command, args } = invoked;
    const notices: PreparedCommand["notices"] = [];
    const honoured = command.source === "user" || command.allowedTools.length === 0 || this.folderTrusted();
    if (!honoured && !this.told.has(command.path)) {
      this.told.add(command.path);
      notices.push({
        kind: "command",
        message: `/${command.name} (${command.path}) would allow ${command.allowedTools.join(", ")} without asking, but this folder is not trusted: it runs with the session's own permissions (\`sylk trust\` trusts the folder).`,
      });
    }
    return {
      prompt: expandCommand(command, args),
      ...(command.model ? { model: command.model } : {}),
      allowedTools: honoured ? command.allowedTools : [],
      notices,
    };
  }

  /** A line naming a command whose file did not load goes as typed, and the user is told why the command did not run. */
  private unloaded(line: string, errors: readonly CommandFileError[]): PreparedCommand | undefined {
    const name = /^\/(\S+)/.exec(line.trim())?.[1];
    const error = errors.find((candidate) => candidate.name === name);
    if (!error) return undefined;
    return {
      prompt: line,
      allowedTools: [],
      notices: [{ kind: "command", message: `/${name} did not run: its file ${error.path} was not loaded (${error.message}).` }],
    };
  }

  private folderTrusted(): boolean {
    const decision = new FolderTrustStore(this.directories.sylkHome).decisionFor(this.directories.root);
    if (!decision?.trusted) return false;
    try {
      return trustVerdict(decision, trustGatedProjectSettings(this.directories.root, this.env)) === "trusted";
    } catch {
      return false; // a .sylkrc that no longer reads: the session said so when it opened
    }
  }
}
