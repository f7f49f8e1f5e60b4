import { join } from "node:path";
import { NotRegularFileError, readRegularFile } from "../files/regular-file.js";
import { isInside, LinkLoopError, resolveLinks } from "../files/resolve-links.js";
import { isSecretPath, maskSecrets } from "../security/secrets.js";

/** Project memory files users of other agents already keep, read in this order. */
const MEMORY_FILES = ["AGENTS.md", "SYLK.md"] as const;
const MAX_MEMORY_CHARS = 40_000;

export interface SystemPromptInput {
  root: string;
  /** `$SYLK_HOME`: its SYLK.md holds the user's own instructions for every project. */
  sylkHome: string;
  toolNames: readonly string[];
  /** Those of `toolNames` left out of the requests until `find_tools` loads them (none: every tool is sent). */
  deferredNames?: readonly string[];
  /** The agent's role section (`src/roles/prompts/`), after how to work. */
  role?: string;
  /** Date only (not time), so the prompt, and the cache it keys, stays stable all day. */
  today: string;
  platform: string;
}

export interface SystemPrompt {
  text: string;
  /** Memory files that were there but not read, and why: for the user to see. */
  notes: string[];
}

/**
 * The stable prefix of every request (prompt-cached): who Sylk is, how to
 * work, the environment, and the memory files (user-level ~/.sylk/SYLK.md,
 * then the project's AGENTS.md and SYLK.md), secrets masked.
 */
export function buildSystemPrompt(input: SystemPromptInput): SystemPrompt {
  // What the model is told to use is what it is sent; a deferred tool's description says how to use it once loaded.
  const deferred = new Set(input.deferredNames ?? []);
  const has = (name: string) => input.toolNames.includes(name) && !deferred.has(name);
  const sections = [
    `You are Sylk, a coding agent working in the repository at ${input.root}. You help the user understand and change this code base.`,
    [
      "How to work:",
      // Only what this agent can do: a read-only role is not told how to edit, the guide not how to search.
      ...finding(has),
      ...(has("edit_file")
        ? [
            "- Read a file before editing it; edit_file replaces an exact string that must occur once, so copy it exactly, whitespace included.",
          ]
        : []),
      ...(has("edit_file") || has("write_file")
        ? [
            `- Keep changes small and in the style of the surrounding code.${has("run_command") ? " Run the project's tests or build with run_command when you change code, if the user allows commands." : ""}`,
          ]
        : []),
      "- If a tool result says permission was denied, do not retry the same call: explain what you would do, or ask.",
      `- Be concise. ${has("edit_file") || has("write_file") ? "When you are done, say what you changed and what you checked." : "When you are done, say what you found and where."}`,
    ].join("\n"),
    ...(input.role ? [input.role] : []),
    `Environment: platform ${input.platform}; date ${input.today}; tools: ${sentTools(input)}.`,
  ];
  const memories = [
    memory(join(input.sylkHome, "SYLK.md"), "User instructions (~/.sylk/SYLK.md)"),
    ...MEMORY_FILES.map((name) => memory(join(input.root, name), `Project instructions (${name})`, { name, root: input.root })),
  ];
  return {
    text: [...sections, ...memories.flatMap((read) => (read.section ? [read.section] : []))].join("\n\n"),
    notes: memories.flatMap((read) => (read.note ? [read.note] : [])),
  };
}

/** The tools the model is sent, and a word on the others, which `find_tools` names and loads. */
function sentTools(input: SystemPromptInput): string {
  const deferred = new Set(input.deferredNames ?? []);
  const sent = input.toolNames.filter((name) => !deferred.has(name));
  return deferred.size > 0 ? `${sent.join(", ")}; find_tools loads ${deferred.size} more` : sent.join(", ");
}

function finding(has: (name: string) => boolean): string[] {
  const ways = [
    ...(has("search_codebase") ? ["use search_codebase for concepts"] : []),
    ...(has("grep") ? ["grep for exact text"] : []),
    ...(has("read_file") ? [has("list_files") ? "list_files and read_file for structure and detail" : "read_file for detail"] : []),
  ];
  return ways.length > 0 ? [`- Find before you answer: ${ways.join(", ")}. Cite code as path:start-end.`] : [];
}

/**
 * One memory file's section, or a note on why it was left out. The user's
 * own file may be a link anywhere (dotfiles often are); a project's file is
 * read only when its real path is inside the project and not a secrets
 * file, since a planted link `AGENTS.md -> ~/.aws/credentials` (or `-> .env`)
 * would send that file to the provider.
 * Only a regular file is read, without blocking: a FIFO would hang the start.
 */
function memory(path: string, title: string, project?: { name: string; root: string }): { section?: string; note?: string } {
  const left = (why: string) => ({ note: `${project?.name ?? path} was not read into the prompt: ${why}.` });
  let text: string;
  try {
    const real = project ? resolveLinks(path) : path;
    if (project && !isInside(real, resolveLinks(project.root))) return left(`it is a symbolic link to ${real}, outside the project`);
    // A planted `AGENTS.md -> .env` stays inside the project, and masking misses an unquoted `PASSWORD=…`.
    if (project && isSecretPath(real)) return left(`it is a symbolic link to ${real}, a secrets file`);
    text = readRegularFile(real).toString("utf8");
  } catch (error) {
    if (error instanceof NotRegularFileError) return left(`it is ${error.kind}, not a regular file`);
    if (error instanceof LinkLoopError) return left("it leads through too many symbolic links");
    return {}; // not there (or unreadable): nothing to say
  }
  if (text.trim() === "") return {};
  const clipped = text.length > MAX_MEMORY_CHARS ? `${text.slice(0, MAX_MEMORY_CHARS)}\n[… truncated]` : text;
  return { section: `${title}:\n${maskSecrets(clipped).text.trim()}` };
}
