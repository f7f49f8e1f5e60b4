import { readFileSync } from "node:fs";
import { AGENT_TYPES, type AgentPlacement, type AgentType } from "./agent-types.js";

/**
 * The role registry (docs/DESIGN-NOTES.md, "Agent roles, consultation and
 * sub-agents"): each agent type's tools, the retrieval hook it runs before a prompt, whether it may touch
 * the user's files, and its system prompt addition.
 */

/** What runs before each prompt. */
export type RoleHook =
  /** The prefetcher with the learned budget: knowledge agents and the guide. */
  | "full_prefetch"
  /** The same prefetcher within `FOCUSED_PREFETCH_TOKENS`: pipeline agents keep small, focused windows. */
  | "focused_prefetch"
  /** The orchestrator: the workflow's state, and no code prefetch. */
  | "workflow_context";

/** A role's focused prefetch: at most this many tokens before each prompt. */
export const FOCUSED_PREFETCH_TOKENS = 1_000;

export interface RoleSpec {
  type: AgentType;
  /** One line: who the agent answers and what it returns. */
  description: string;
  /** Tool names in the order the model sees them; a session offers those it has. */
  tools: readonly string[];
  hook: RoleHook;
  /** Never holds a tool that writes files, runs commands or starts other agents. */
  readOnly: boolean;
}

/** R: reading the code and the history. */
const READ = [
  "read_file",
  "list_files",
  "glob",
  "grep",
  "search_codebase",
  "retrieve_context",
  "search_history",
  "get_turn_range",
] as const;
/** W and X: changing the user's files and running commands. */
const WRITE_AND_EXECUTE = ["edit_file", "write_file", "run_command"] as const;
/** The agents that change files see the tools in the order Sylk's one agent always had. */
const WORKING = [
  "read_file",
  "list_files",
  "glob",
  "grep",
  "search_codebase",
  ...WRITE_AND_EXECUTE,
  "retrieve_context",
  "search_history",
  "get_turn_range",
  "todo_write",
  "web_fetch",
] as const;
const CONSULT_ALL = ["consult_librarian", "consult_archivalist", "consult_academic", "consult_architect"] as const;
/** Knowledge that lasts (offered only with `knowledge.enabled`): saved, found and withdrawn by the agents that work with the user. */
const KNOWLEDGE = [
  "save_knowledge",
  "search_knowledge",
  "delete_knowledge",
  "record_inquiry",
  "create_skill",
  "list_skills",
  "run_skill",
] as const;

const SPECS: Record<AgentType, Omit<RoleSpec, "type">> = {
  librarian: {
    description: "Knows this codebase: where things are, how they work, its patterns. Answers with cited code; changes nothing.",
    tools: [...READ, "get_symbol_context", "get_recent_changes", "search_knowledge", "record_inquiry", "share_context"],
    hook: "full_prefetch",
    readOnly: true,
  },
  archivalist: {
    description: "Knows this project's history: decisions, past failures, test runs, recurring problems. Changes nothing.",
    tools: [
      "read_file",
      "retrieve_context",
      "search_history",
      "get_turn_range",
      "search_decisions",
      "get_chronicle_entries",
      "get_cross_session_patterns",
      "search_test_history",
      "search_knowledge",
      "share_context",
    ],
    hook: "full_prefetch",
    readOnly: true,
  },
  academic: {
    description: "Practice and theory: algorithms, protocols, library behaviour, whether an approach fits this codebase. Changes nothing.",
    tools: [...READ, "consult_librarian", "share_context"],
    hook: "full_prefetch",
    readOnly: true,
  },
  architect: {
    description: "Designs changes: ordered steps with files and done-criteria, key decisions, risks. Changes nothing.",
    tools: [
      ...READ,
      "get_symbol_context",
      "get_recent_changes",
      "search_decisions",
      "consult_librarian",
      "consult_archivalist",
      "share_context",
      "submit_design",
    ],
    hook: "full_prefetch",
    readOnly: true,
  },
  engineer: {
    description: "Implements changes, runs the checks, says what changed.",
    tools: [...WORKING, "get_symbol_context", "get_recent_changes", ...KNOWLEDGE, ...CONSULT_ALL, "delegate"],
    hook: "focused_prefetch",
    readOnly: false,
  },
  designer: {
    description: "Builds user interfaces with the project's own components and styles, accessibly.",
    tools: [...WORKING, "get_recent_changes", ...KNOWLEDGE, "consult_librarian", "consult_academic", "consult_architect"],
    hook: "focused_prefetch",
    readOnly: false,
  },
  inspector: {
    description: "Reviews code and changes; reports issues with severity, file and line. Changes nothing.",
    tools: [
      ...READ,
      "get_symbol_context",
      "get_recent_changes",
      "search_test_history",
      "get_coverage_gaps",
      "consult_librarian",
      "consult_archivalist",
      "report_issues",
    ],
    hook: "focused_prefetch",
    readOnly: true,
  },
  tester: {
    description: "Writes tests in the project's style, runs them, reports results.",
    tools: [...WORKING, "search_test_history", "get_coverage_gaps", ...KNOWLEDGE, "consult_librarian", "report_test_results"],
    hook: "focused_prefetch",
    readOnly: false,
  },
  orchestrator: {
    description: "Plans work into steps and coordinates the agents that do them.",
    tools: [
      "read_file",
      "list_files",
      "glob",
      "search_codebase",
      "retrieve_context",
      "search_history",
      "get_turn_range",
      "todo_write",
      "search_decisions",
      "get_agent_capabilities",
      ...KNOWLEDGE,
      ...CONSULT_ALL,
      "delegate",
      "submit_plan",
    ],
    hook: "workflow_context",
    readOnly: false,
  },
  guide: {
    description: "The first point of contact: answers briefly or routes the request to the agent best placed to answer.",
    tools: [
      "retrieve_context",
      "search_history",
      "get_turn_range",
      "get_routing_history",
      "get_agent_capabilities",
      ...KNOWLEDGE,
      "route_to_agent",
    ],
    hook: "full_prefetch",
    readOnly: false,
  },
};

/**
 * The hook as placed. The agent the user talks to keeps the full prefetch
 * whatever its role: its window is the conversation, and self-tuning retrieval learns
 * that budget from the user's outcomes. The focused 1,000 tokens are for
 * an agent working inside a pipeline or for another agent.
 */
export function hookOf(role: Pick<RoleSpec, "hook">, placement: AgentPlacement): RoleHook {
  return role.hook === "focused_prefetch" && placement === "main" ? "full_prefetch" : role.hook;
}

export function roleOf(type: AgentType): RoleSpec {
  return { type, ...SPECS[type] };
}

export function builtinRoles(): RoleSpec[] {
  return AGENT_TYPES.map(roleOf);
}

/** The role's tools among those a session has, in the role's order. */
export function toolsForRole<Tool extends { name: string }>(role: Pick<RoleSpec, "tools">, available: readonly Tool[]): Tool[] {
  const byName = new Map(available.map((tool) => [tool.name, tool]));
  return role.tools.flatMap((name) => {
    const tool = byName.get(name);
    return tool ? [tool] : [];
  });
}

/**
 * The role's system prompt addition (`prompts/<type>.md`), with the
 * paragraphs about tools this session does not offer left out: a prompt
 * must not describe machinery the model will never see. A paragraph (the
 * lines up to the next blank line) headed by `<!-- requires: a, b -->` is
 * kept only when every named tool is offered.
 */
export function rolePrompt(type: AgentType, toolNames: readonly string[]): string {
  const text = readFileSync(new URL(`./prompts/${type}.md`, import.meta.url), "utf8");
  return promptForTools(text, new Set(toolNames));
}

const REQUIRES = /^<!--\s*requires:\s*([^>]*?)\s*-->$/;

export function promptForTools(text: string, offered: ReadonlySet<string>): string {
  const paragraphs = text.trim().split(/\n\s*\n/);
  const kept = paragraphs.flatMap((paragraph) => {
    const [first = "", ...rest] = paragraph.split("\n");
    const requires = REQUIRES.exec(first.trim());
    if (!requires) return [paragraph];
    const needed = (requires[1] ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
    return needed.every((name) => offered.has(name)) ? [rest.join("\n")] : [];
  });
  return kept.join("\n\n");
}
