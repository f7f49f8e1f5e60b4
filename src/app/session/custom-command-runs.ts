import { loadCustomCommands, invokedCommand, type CustomCommandDirectories } from "../../commands/custom-commands.js";
import { expandCommand } from "../../commands/expand-command.js";
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
 * folder the user trusts; elsewhere the command runs with the session's
 * own permissions, and the user is told once per command.
 */
export class CustomCommandRuns {
  private readonly told = new Set<string>();

  constructor(private readonly directories: CustomCommandDirectories) {}

  prepare(line: string): PreparedCommand | undefined {
    if (!line.trimStart().startsWith("/")) return undefined;
    const invoked = invokedCommand(line, loadCustomCommands(this.directories).commands);
    if (!invoked) return undefined;
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

  private folderTrusted(): boolean {
    return new FolderTrustStore(this.directories.sylkHome).decisionFor(this.directories.root)?.trusted === true;
  }
}
