import { type Dirent, readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { readRegularFileInside, unreadableReason } from "../files/read-inside.js";
import { errorMessage } from "../errors.js";
import { type CommandFileError, type CustomCommand, type CustomCommandSource, parseCommandFile } from "./command-file.js";

export type { CommandFileError, CustomCommand, CustomCommandSource };

export interface CustomCommands {
  commands: CustomCommand[];
  errors: CommandFileError[];
}

export interface CustomCommandDirectories {
  /** `$SYLK_HOME`: the user's commands are in its `commands/`. */
  sylkHome: string;
  /** The project root (symlink-resolved): the project's commands are in `.sylk/commands/`. */
  root: string;
}

/** The largest command file read. */
const MAX_COMMAND_FILE_BYTES = 64 * 1024;
/** How deep namespaces go (`a/b/c/name.md`), and how many files are read: a bound on a start-up walk. */
const MAX_DEPTH = 4;
const MAX_FILES = 500;
/** A name part: what a user types after the slash. */
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * Every custom command of the user and the project. Each file loads on its
 * own: one that does not becomes an error and the others load. A name in
 * both places is the user's: a cloned repository must not replace a
 * command the user wrote (as custom agents).
 */
export function loadCustomCommands(directories: CustomCommandDirectories): CustomCommands {
  const user = loadDirectory(join(directories.sylkHome, "commands"), directories.sylkHome, "user");
  const project = loadDirectory(join(directories.root, ".sylk", "commands"), directories.root, "project");
  const byName = new Map(user.commands.map((command) => [command.name, command]));
  const commands = [...user.commands];
  const errors = [...user.errors, ...project.errors];
  for (const command of project.commands) {
    const mine = byName.get(command.name);
    if (mine) {
      errors.push({ path: command.path, message: `/${command.name} is already the user's (${mine.path}), which wins; not loaded` });
      continue;
    }
    commands.push(command);
  }
  return { commands: commands.sort((a, b) => a.name.localeCompare(b.name)), errors };
}

/** The command a line invokes (`/frontend:lint src`), and what follows its name. */
export function invokedCommand(line: string, commands: readonly CustomCommand[]): { command: CustomCommand; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  const name = match?.[1];
  if (!name) return undefined;
  const command = commands.find((candidate) => candidate.name === name);
  return command ? { command, args: (match[2] ?? "").trim() } : undefined;
}

function loadDirectory(directory: string, root: string, source: CustomCommandSource): CustomCommands {
  const result: CustomCommands = { commands: [], errors: [] };
  const label = source === "user" ? "$SYLK_HOME" : "the project";
  for (const path of markdownFiles(directory, result.errors)) {
    const parts = relative(directory, path).slice(0, -".md".length).split(sep);
    if (!parts.every((part) => NAME_PART.test(part))) {
      result.errors.push({ path, message: "a command's folders and file name are letters, digits, `.`, `_` and `-`; not loaded" });
      continue;
    }
    const name = parts.join(":");
    let text: string;
    try {
      text = readRegularFileInside(path, root, MAX_COMMAND_FILE_BYTES);
    } catch (error) {
      result.errors.push({ path, name, message: unreadableReason(error, { label, maxBytes: MAX_COMMAND_FILE_BYTES }) });
      continue;
    }
    const loaded = parseCommandFile(text, { name, path, source });
    if ("message" in loaded) result.errors.push({ ...loaded, name });
    else result.commands.push(loaded);
  }
  return result;
}

/** The `.md` files below a folder, sorted; folders reached through a symbolic link are not entered. */
function markdownFiles(directory: string, errors: CommandFileError[], depth = 0, found: string[] = []): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      errors.push({ path: directory, message: `cannot read the folder: ${errorMessage(error)}` });
    return found;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (found.length >= MAX_FILES) break;
    const path = join(directory, entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) markdownFiles(path, errors, depth + 1, found);
    // A link is judged where it leads when it is read (`readRegularFileInside`); a FIFO is refused there too.
    else if (!entry.isDirectory() && entry.name.endsWith(".md")) found.push(path);
  }
  return found;
}
