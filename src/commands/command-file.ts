import { parse as parseYaml, YAMLError } from "yaml";
import * as z from "zod";
import { maskSecrets } from "../security/secrets.js";

/** Where a custom command's file is: the user's `$SYLK_HOME/commands/` or the project's `.sylk/commands/`. */
export type CustomCommandSource = "user" | "project";

/** A custom slash command, as its Markdown file defines it. */
export interface CustomCommand {
  /** Without the slash: `review`, `frontend:lint`. */
  name: string;
  source: CustomCommandSource;
  /** The file as found (not symlink-resolved). */
  path: string;
  /** One line for the menu: the front matter's, or the body's first line. */
  description: string;
  /** What the arguments are, for the menu (`<file> [focus]`). */
  argumentHint?: string;
  /** The model that answers this command's prompt; absent: the session's. */
  model?: string;
  /** Allow rules for the command's run, in Sylk's rule syntax. */
  allowedTools: string[];
  /** The prompt, with `$ARGUMENTS`, `$1`…`$9` and `@path` still to expand; secrets masked. */
  body: string;
}

/** A command file that did not load, and why. */
export interface CommandFileError {
  path: string;
  message: string;
  /** The command the file would have been (absent for a folder that could not be read). */
  name?: string;
}

/** The most a body keeps, as for AGENTS.md. */
const MAX_BODY_CHARS = 40_000;
const MAX_DESCRIPTION_CHARS = 200;

/** Claude Code's tool names, as Sylk names the same tools, so that its `allowed-tools` carry over. */
const CLAUDE_CODE_TOOLS: Readonly<Record<string, string>> = {
  Bash: "run_command",
  Read: "read_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Write: "write_file",
  Grep: "grep",
  Glob: "glob",
  LS: "list_files",
  WebFetch: "web_fetch",
  TodoWrite: "todo_write",
  Task: "delegate",
};

/** The form of a permission rule: `tool` or `tool(pattern)`. */
const RULE_FORM = /^[a-z_]+(\(.*\))?$/;

const toolList = z.union([z.array(z.string()), z.string()]).transform((value, context) => {
  const rules = (typeof value === "string" ? splitTopLevel(value) : value)
    .map((rule) => sylkRule(rule.trim()))
    .filter((rule) => rule !== "");
  const malformed = rules.filter((rule) => !RULE_FORM.test(rule));
  if (malformed.length > 0) {
    context.addIssue({ code: "custom", message: `${malformed.join(", ")}: a rule looks like tool or tool(pattern), e.g. Bash(git add:*)` });
    return z.NEVER;
  }
  return rules;
});

// Loose on purpose: Claude Code's files carry keys Sylk does not use, and they load.
const frontMatterSchema = z.looseObject({
  description: z.string().trim().max(MAX_DESCRIPTION_CHARS, `is longer than ${MAX_DESCRIPTION_CHARS} characters`).optional(),
  "argument-hint": z.union([z.string(), z.array(z.string())]).optional(),
  model: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/, "must be a model name")
    .refine((name) => !name.includes("//"), "must be a model name, not an address")
    .optional(),
  "allowed-tools": toolList.optional(),
});

/** A command file's text, checked: the command, or what is wrong with it. */
export function parseCommandFile(
  text: string,
  file: { name: string; path: string; source: CustomCommandSource },
): CustomCommand | CommandFileError {
  const fail = (message: string): CommandFileError => ({ path: file.path, message });
  const split = splitFrontMatter(text);
  let data: unknown = {};
  if (split.yaml !== undefined) {
    try {
      data = parseYaml(split.yaml, { schema: "core", uniqueKeys: true, maxAliasCount: 10 }) ?? {};
    } catch (error) {
      if (!(error instanceof YAMLError)) throw error;
      const line = error.linePos?.[0] ? ` at line ${error.linePos[0].line + 1}` : "";
      return fail(`YAML error${line}: ${error.message.split(/ at line \d+/)[0]}`);
    }
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return fail("the front matter must be a YAML mapping");
  const checked = frontMatterSchema.safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return fail(`${issue?.path.map(String).join(".") || "front matter"}: ${issue?.message ?? "invalid"}`);
  }
  const spec = checked.data;
  const body = split.body.trim();
  if (body === "") return fail("the file has no prompt after its front matter");
  const clipped = body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}\n[… truncated]` : body;
  const hint = spec["argument-hint"];
  return {
    name: file.name,
    source: file.source,
    path: file.path,
    description: spec.description || firstLine(body),
    ...(hint !== undefined ? { argumentHint: Array.isArray(hint) ? hint.join(" ") : hint } : {}),
    ...(spec.model ? { model: spec.model } : {}),
    allowedTools: spec["allowed-tools"] ?? [],
    body: maskSecrets(clipped).text,
  };
}

/** `Bash(git add:*)` as Sylk writes it: `run_command(git add:*)`; Sylk's own names stay. */
function sylkRule(rule: string): string {
  const match = /^([A-Za-z]+)(\(.*\))?$/.exec(rule);
  const tool = match?.[1];
  if (!tool) return rule;
  return `${CLAUDE_CODE_TOOLS[tool] ?? tool}${match[2] ?? ""}`;
}

/** `Bash(git add:*), Read` split at the commas outside parentheses. */
function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    else if (char === "," && depth === 0) {
      parts.push(value.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

function firstLine(body: string): string {
  const line = body.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  const text = line.replace(/^#+\s*/, "").trim();
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}

/** The YAML between a first line `---` and the next line `---` (none when the file does not start so), and the body. */
function splitFrontMatter(text: string): { yaml?: string; body: string } {
  const clean = text.replace(/^\uFEFF/, "");
  const lines = clean.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { body: clean };
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (end < 0) return { body: clean };
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}
