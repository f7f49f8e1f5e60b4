import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { parse as parseYaml, YAMLError } from "yaml";
import * as z from "zod";
import { FileTooLargeError } from "../files/regular-file.js";
import { readRegularFileInside, unreadableReason } from "../files/read-inside.js";
import { SESSION_TOOL_NAMES } from "./tool-names.js";
import { type AgentCategory, isAgentType } from "./agent-types.js";
import { maskSecrets } from "../security/secrets.js";
import { errorMessage } from "../errors.js";

/**
 * Custom agents: `$SYLK_HOME/agents/*.md` (the
 * user's) and `<root>/.sylk/agents/*.md` (the project's), each a YAML front
 * matter between `---` lines and the prompt as its body. A file may add a
 * prompt and choose a subset of Sylk's own tools, a category and a model
 * name; nothing in it can widen what runs without asking or where a request
 * goes, so a project's files load in untrusted folders too.
 */

export type CustomAgentSource = "user" | "project";

export interface CustomAgent {
  name: string;
  source: CustomAgentSource;
  /** The file as found (not symlink-resolved). */
  path: string;
  category: AgentCategory;
  description: string;
  /** In the file's order: the order the model sees them. */
  tools: string[];
  /** Holds none of `MUTATING_TOOLS`. */
  readOnly: boolean;
  /** `inherit`: the session's model. */
  model: string;
  /** The body: at most `MAX_PROMPT_CHARS`, secrets masked. */
  prompt: string;
}

/** A file that did not load, and why (a YAML error says its line in the file). */
export interface AgentFileError {
  path: string;
  message: string;
}

export interface CustomAgents {
  agents: CustomAgent[];
  errors: AgentFileError[];
}

/** The largest agent file read. */
const MAX_AGENT_FILE_BYTES = 64 * 1024;
/** As for AGENTS.md. */
const MAX_PROMPT_CHARS = 40_000;

/** W, X and the tools that start other agents (`delegate`, `route_to_agent`): a file must name them to get them, and a knowledge agent may not. */
export const MUTATING_TOOLS: readonly string[] = ["edit_file", "write_file", "run_command", "delegate", "route_to_agent"];

/** What a file that omits `tools` gets: reading the code and the history, nothing that changes anything. */
export const DEFAULT_CUSTOM_TOOLS: readonly string[] = [
  "read_file",
  "list_files",
  "glob",
  "grep",
  "search_codebase",
  "retrieve_context",
  "search_history",
  "get_turn_range",
  "get_symbol_context",
  "get_recent_changes",
];

const TOOL_NAMES: readonly string[] = SESSION_TOOL_NAMES;

const toolList = z.union([z.array(z.string()), z.string()]).transform((value, context) => {
  const names = (typeof value === "string" ? value.split(",") : value).map((name) => name.trim()).filter((name) => name !== "");
  const unknown = names.filter((name) => !TOOL_NAMES.includes(name));
  if (unknown.length > 0) {
    context.addIssue({
      code: "custom",
      message: `unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (Sylk's tools: ${TOOL_NAMES.join(", ")})`,
    });
    return z.NEVER;
  }
  if (names.length === 0) {
    context.addIssue({ code: "custom", message: "names no tool; leave it out for the read-only set" });
    return z.NEVER;
  }
  return [...new Set(names)];
});

const frontMatterSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/, "must be lowercase letters, digits and dashes, starting with a letter, at most 40 characters"),
  description: z.string().trim().min(1, "is required").max(500, "is longer than 500 characters"),
  tools: toolList.optional(),
  // A name for the configured provider; never an address.
  model: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/, "must be a model name or inherit")
    .refine((name) => !name.includes("//"), "must be a model name, not an address")
    .default("inherit"),
  category: z.enum(["knowledge", "pipeline", "standalone"]).default("standalone"),
});

export interface CustomAgentDirectories {
  /** `$SYLK_HOME`: the user's agents are in its `agents/`. */
  sylkHome: string;
  /** The project root (symlink-resolved): the project's agents are in `.sylk/agents/`. */
  root: string;
}

/**
 * Every custom agent of the user and the project. Each file loads on its
 * own: one that does not becomes an error and the others load. Built-in
 * names are reserved, and a name in both places is the user's (a cloned
 * repository must not replace an agent the user wrote).
 */
export function loadCustomAgents(directories: CustomAgentDirectories): CustomAgents {
  const user = loadDirectory(join(directories.sylkHome, "agents"), directories.sylkHome, "user");
  const project = loadDirectory(join(directories.root, ".sylk", "agents"), directories.root, "project");
  const errors = [...user.errors, ...project.errors];
  const byName = new Map(user.agents.map((agent) => [agent.name, agent]));
  const agents = [...user.agents];
  for (const agent of project.agents) {
    const mine = byName.get(agent.name);
    if (mine) {
      errors.push({
        path: agent.path,
        message: `the agent "${agent.name}" is already the user's (${mine.path}), which wins; this file is not loaded`,
      });
      continue;
    }
    agents.push(agent);
  }
  return { agents, errors };
}

function loadDirectory(directory: string, root: string, source: CustomAgentSource): CustomAgents {
  let names: string[];
  try {
    names = readdirSync(directory)
      .filter((name) => name.endsWith(".md"))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { agents: [], errors: [] };
    return { agents: [], errors: [{ path: directory, message: `cannot read the directory: ${errorMessage(error)}` }] };
  }
  const result: CustomAgents = { agents: [], errors: [] };
  for (const name of names) {
    const path = join(directory, name);
    const loaded = loadAgentFile(path, root, source);
    if ("message" in loaded) result.errors.push(loaded);
    else result.agents.push(loaded);
  }
  return result;
}

/** One file: where it really is, how big, then its text. */
function loadAgentFile(path: string, root: string, source: CustomAgentSource): CustomAgent | AgentFileError {
  let text: string;
  try {
    text = readRegularFileInside(path, root, MAX_AGENT_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError)
      return { path, message: `${error.size} bytes: an agent file may have at most ${MAX_AGENT_FILE_BYTES} (64 KB)` };
    return {
      path,
      message: unreadableReason(error, { label: source === "user" ? "$SYLK_HOME" : "the project", maxBytes: MAX_AGENT_FILE_BYTES }),
    };
  }
  return parseAgentFile(text, { path, source });
}

/** An agent file's text, checked: the agent, or what is wrong with it. */
export function parseAgentFile(text: string, file: { path: string; source: CustomAgentSource }): CustomAgent | AgentFileError {
  const { path, source } = file;
  const fail = (message: string): AgentFileError => ({ path, message });
  const split = splitFrontMatter(text);
  if (!split)
    return fail(
      "no front matter: the file must start with a line `---`, then YAML (name, description, …), then a line `---`, then the prompt",
    );

  let data: unknown;
  try {
    data = parseYaml(split.yaml, { schema: "core", uniqueKeys: true, maxAliasCount: 10 });
  } catch (error) {
    if (!(error instanceof YAMLError)) throw error;
    // The YAML starts on the file's second line.
    const line = error.linePos?.[0] ? ` at line ${error.linePos[0].line + 1}` : "";
    return fail(`YAML error${line}: ${error.message.split(/ at line \d+/)[0]}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return fail("the front matter must be a YAML mapping (name: …, description: …)");

  const checked = frontMatterSchema.safeParse(data);
  if (!checked.success) return fail(issueText(checked.error));
  const spec = checked.data;

  const stem = basename(path, ".md");
  if (spec.name !== stem) return fail(`name "${spec.name}" must equal the file's name (${stem})`);
  if (isAgentType(spec.name)) return fail(`"${spec.name}" is a built-in agent's name; give yours another (name and file)`);
  const tools = spec.tools ?? [...DEFAULT_CUSTOM_TOOLS];
  const mutating = tools.filter((tool) => MUTATING_TOOLS.includes(tool));
  if (spec.category === "knowledge" && mutating.length > 0) {
    return fail(`a knowledge agent changes nothing and starts no agents: it may not have ${mutating.join(", ")}`);
  }
  const body = split.body.trim();
  const clipped = body.length > MAX_PROMPT_CHARS ? `${body.slice(0, MAX_PROMPT_CHARS)}\n[… truncated]` : body;
  return {
    name: spec.name,
    source,
    path,
    category: spec.category,
    description: spec.description,
    tools,
    readOnly: mutating.length === 0,
    model: spec.model,
    prompt: maskSecrets(clipped).text.trim(),
  };
}

/** The YAML between a first line `---` and the next line `---`, and the body after it. */
function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return undefined;
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (end < 0) return undefined;
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid front matter";
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}: an agent file may set only name, description, tools, model and category`;
  }
  const key = issue.path.map(String).join(".") || "front matter";
  if (issue.code === "invalid_type" && issue.input === undefined) return `${key} is required`;
  return `${key}: ${issue.message}`;
}
