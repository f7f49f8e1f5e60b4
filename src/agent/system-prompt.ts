import { readFileSync } from "node:fs";
import { join } from "node:path";
import { maskSecrets } from "../security/secrets.js";

/** Project memory files users of other agents already keep, read in this order. */
export const MEMORY_FILES = ["AGENTS.md", "SYLK.md"] as const;
const MAX_MEMORY_CHARS = 40_000;

export interface SystemPromptInput {
  root: string;
  /** `$SYLK_HOME`: its SYLK.md holds the user's own instructions for every project. */
  sylkHome: string;
  toolNames: readonly string[];
  /** Date only (not time), so the prompt, and the cache it keys, stays stable all day. */
  today: string;
  platform: string;
}

/**
 * The stable prefix of every request (prompt-cached): who Sylk is, how to
 * work, the environment, and the memory files (user-level ~/.sylk/SYLK.md,
 * then the project's AGENTS.md and SYLK.md), secrets masked.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const sections = [
    `You are Sylk, a coding agent working in the repository at ${input.root}. You help the user understand and change this code base.`,
    [
      "How to work:",
      "- Find before you answer: use search_codebase for concepts, grep for exact text, list_files and read_file for structure and detail. Cite code as path:start-end.",
      "- Read a file before editing it; edit_file replaces an exact string that must occur once, so copy it exactly, whitespace included.",
      "- Keep changes small and in the style of the surrounding code. Run the project's tests or build with run_command when you change code, if the user allows commands.",
      "- If a tool result says permission was denied, do not retry the same call: explain what you would do, or ask.",
      "- Be concise. When you are done, say what you changed and what you checked.",
    ].join("\n"),
    `Environment: platform ${input.platform}; date ${input.today}; tools: ${input.toolNames.join(", ")}.`,
  ];
  const memories = [
    memory(join(input.sylkHome, "SYLK.md"), "User instructions (~/.sylk/SYLK.md)"),
    ...MEMORY_FILES.map((name) => memory(join(input.root, name), `Project instructions (${name})`)),
  ].filter((section): section is string => section !== undefined);
  return [...sections, ...memories].join("\n\n");
}

function memory(path: string, title: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  if (text.trim() === "") return undefined;
  const clipped = text.length > MAX_MEMORY_CHARS ? `${text.slice(0, MAX_MEMORY_CHARS)}\n[… truncated]` : text;
  return `${title}:\n${maskSecrets(clipped).text.trim()}`;
}
