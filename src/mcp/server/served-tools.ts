import { PermissionPolicy } from "../../agent/permissions/permission-policy.js";
import { RepositoryIntegrity } from "../../agent/sandbox/repository-integrity.js";
import { createContextTools } from "../../agent/tools/context-tools.js";
import { createGetRecentChangesTool } from "../../agent/tools/role-tools/get-recent-changes.js";
import { createGetSymbolContextTool } from "../../agent/tools/role-tools/get-symbol-context.js";
import { chunksMentioningFrom } from "../../agent/tools/role-tools/symbol-mentions.js";
import { type CodeSearcher, createSearchCodebaseTool } from "../../agent/tools/search-codebase.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import { ToolRegistry } from "../../agent/tools/tool-registry.js";
import type { ProjectServices } from "../../app/project-services.js";
import { ContextRetriever } from "../../context/context-retriever.js";
import { SessionKnowledge } from "../../knowledge/session/session-knowledge.js";

/** The tools `sylk mcp serve` offers, always: the index and the history. */
export const SERVED_TOOLS = [
  "search_codebase",
  "search_history",
  "retrieve_context",
  "get_turn_range",
  "get_symbol_context",
  "get_recent_changes",
] as const;

/** Offered besides when the project's configuration turns knowledge on (`knowledge.enabled`). */
export const SERVED_KNOWLEDGE_TOOLS = ["search_knowledge", "list_skills"] as const;

/**
 * The most tokens one answer may take. The client's window is unknown here;
 * Claude Code warns past 10,000 tokens of one MCP tool's output, so no
 * answer is made larger than that (each tool's own `max_tokens` still
 * bounds it below).
 */
export const SERVED_ANSWER_TOKENS = 10_000;

const TURN_RANGE_NOTE =
  "Served over MCP by `sylk mcp serve`, the turns are those of the most recent Sylk session recorded in this project; search_history and retrieve_context reach every session.";

const RECENT_CHANGES_NOTE =
  "Served over MCP by `sylk mcp serve`, there is no session of its own: the answer is git's commits and the uncommitted changes (new files git does not track are not listed).";

/** A tool as a session has it, its description followed by what differs when it is served. */
function describedForServing<Tool extends ToolDefinition>(tool: Tool, note: string): Tool {
  return { ...tool, description: `${tool.description}\n\n${note}` };
}

export interface ServedTools {
  registry: ToolRegistry;
  /** Closes the user's knowledge store, if a search opened it. */
  close(): void;
}

export interface ServedToolsDeps {
  services: ProjectServices;
  /** Code search: the interactive session's warm index when one serves, else this process's own. */
  codeSearcher: CodeSearcher;
  env: NodeJS.ProcessEnv;
}

/**
 * The agent's own read-only tools over this project, built by the same
 * factories a session uses (one implementation, one schema each), narrowed
 * to an allowlist and held by a read-only registry: a write, command or
 * memory tool is neither built for it nor could be admitted by it. The
 * policy is plan mode with the project's rules, so a `deny` rule the user
 * wrote for a tool holds here too, and nothing can ask (there is no one to
 * ask): what the policy would ask about is refused.
 */
export function servedTools(deps: ServedToolsDeps): ServedTools {
  const { services, codeSearcher } = deps;
  const config = services.loadedConfig.config;
  const availableTokens = () => SERVED_ANSWER_TOKENS;
  // The user's own knowledge for every project is searched beside the project's, as in a session.
  const knowledge = new SessionKnowledge(services, config, () => "");
  const latestSessionId = () => services.sessions.latest()?.id ?? "";
  const contextTools = createContextTools({
    retriever: new ContextRetriever(services.contentStore),
    contentStore: services.contentStore,
    sessionId: latestSessionId,
    availableTokens,
    sessionTree: (id) => [id, ...services.sessions.descendants(id).map((child) => child.id)],
  }).map((tool) => (tool.name === "get_turn_range" ? describedForServing(tool, TURN_RANGE_NOTE) : tool));
  const candidates: ToolDefinition[] = [
    createSearchCodebaseTool(codeSearcher),
    ...contextTools,
    createGetSymbolContextTool({
      symbols: services.files,
      chunksMentioning: chunksMentioningFrom(services.codeFullText, services.files),
      availableTokens,
    }),
    // No session of its own changed anything: git's history and the uncommitted changes are the answer.
    describedForServing(createGetRecentChangesTool({ availableTokens, gitGate: new RepositoryIntegrity(deps.env) }), RECENT_CHANGES_NOTE),
    ...knowledge.tools({
      // A skill's steps would run through this; run_skill is not served, so nothing does.
      run: () => Promise.reject(new Error("skills do not run over MCP")),
      names: () => [],
    }),
  ];
  const allowed = new Set<string>([...SERVED_TOOLS, ...(config.knowledge.enabled ? SERVED_KNOWLEDGE_TOOLS : [])]);
  const policy = new PermissionPolicy("plan", config.permissions);
  const registry = new ToolRegistry(
    candidates.filter((tool) => allowed.has(tool.name)),
    policy,
    undefined,
    { readOnly: true },
  );
  return { registry, close: () => knowledge.close() };
}
