import { SESSION_TOOL_NAMES } from "./tool-names.js";
import { type AgentCategory, categoryOf } from "./agent-types.js";
import { estimateTokens } from "../tokens/estimate-tokens.js";
import type { CustomAgent } from "./custom-agents.js";
import { customRole } from "./resolve-role.js";
import { builtinRoles, rolePrompt } from "./role-registry.js";

/** One agent as `sylk agents` lists it (`--json` prints these fields). */
export interface AgentListing {
  name: string;
  source: "builtin" | "user" | "project";
  /** The agent file, for custom agents; null for built-ins. */
  path: string | null;
  /** As the main agent (`--agent`): inspector and tester are pipeline agents only inside a pipeline; a custom agent's is its file's. */
  category: AgentCategory;
  description: string;
  /** The tools it gets in this version of Sylk, in the order the model sees them. */
  tools: string[];
  read_only: boolean;
  /** `inherit`: the session's model. */
  model: string;
  /** The role's prompt addition (a custom agent's: its description and body), estimated. */
  prompt_tokens: number;
}

export function builtinAgentListings(offered: readonly string[] = SESSION_TOOL_NAMES): AgentListing[] {
  return builtinRoles().map((role) => {
    const tools = role.tools.filter((name) => offered.includes(name));
    return {
      name: role.type,
      source: "builtin",
      path: null,
      category: categoryOf(role.type, "main"),
      description: role.description,
      tools,
      read_only: role.readOnly,
      model: "inherit",
      prompt_tokens: estimateTokens(rolePrompt(role.type, tools)),
    };
  });
}

/** The custom agents as `sylk agents` lists them: the tools a file names (or the read-only base set), in its order. */
function customAgentListings(agents: readonly CustomAgent[], offered: readonly string[] = SESSION_TOOL_NAMES): AgentListing[] {
  return agents.map((agent) => {
    const tools = agent.tools.filter((name) => offered.includes(name));
    return {
      name: agent.name,
      source: agent.source,
      path: agent.path,
      category: agent.category,
      description: agent.description,
      tools,
      read_only: agent.readOnly,
      model: agent.model,
      prompt_tokens: estimateTokens(customRole(agent).prompt(tools)),
    };
  });
}

/** Built-in agents first, then the custom ones (the user's, then the project's). */
export function agentListings(custom: readonly CustomAgent[], offered: readonly string[] = SESSION_TOOL_NAMES): AgentListing[] {
  return [...builtinAgentListings(offered), ...customAgentListings(custom, offered)];
}
