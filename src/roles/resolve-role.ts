import { BadInputError } from "../errors.js";
import { AGENT_TYPES, type AgentCategory, type AgentType, categoryOf, isAgentType } from "./agent-types.js";
import { type CustomAgent, type CustomAgentDirectories, loadCustomAgents } from "./custom-agents.js";
import { type RoleHook, roleOf, rolePrompt } from "./role-registry.js";

/**
 * What a session needs of the agent it runs, built-in or custom: one shape,
 * so the session does not ask which kind it has.
 */
export interface ResolvedRole {
  /** As `--agent` names it. */
  name: string;
  source: "builtin" | CustomAgent["source"];
  /** The type its records carry (`agent_type` of entries, instances and profiles): the built-in type, or `custom:<name>`. */
  agentType: string;
  /**
   * The built-in type whose handoff machinery it uses (category, eviction
   * strategy, degradation action, the profile it starts from). A custom
   * agent borrows the built-in type of its category whose behaviour fits:
   * knowledge → librarian (evicts, oldest turns first), pipeline → engineer
   * (hands off), standalone → orchestrator (hands off).
   */
  handoffType: AgentType;
  category: AgentCategory;
  /** Tool names in the order the model sees them; a session offers those it has. */
  tools: readonly string[];
  readOnly: boolean;
  hook: RoleHook;
  /** A model name, or undefined for the session's own. */
  model: string | undefined;
  /** The role section of the system prompt, given the tools the session offers. */
  prompt(offered: readonly string[]): string;
}

const HANDOFF_TYPE_OF: Record<AgentCategory, AgentType> = { knowledge: "librarian", pipeline: "engineer", standalone: "orchestrator" };
const HOOK_OF: Record<AgentCategory, RoleHook> = { knowledge: "full_prefetch", pipeline: "focused_prefetch", standalone: "full_prefetch" };

/** The agent named by `--agent` or `agent.type`; an unknown name is a usage error listing the known ones. */
export function resolveRole(name: string, custom: readonly CustomAgent[]): ResolvedRole {
  if (isAgentType(name)) return builtinRole(name);
  const agent = custom.find((candidate) => candidate.name === name);
  if (agent) return customRole(agent);
  const known = [...AGENT_TYPES, ...custom.map((candidate) => `${candidate.name} (${candidate.source})`)];
  throw new BadInputError(`Unknown agent "${name}". Known agents: ${known.join(", ")}. \`sylk agents\` lists them.`);
}

function builtinRole(type: AgentType): ResolvedRole {
  const spec = roleOf(type);
  return {
    name: type,
    source: "builtin",
    agentType: type,
    handoffType: type,
    category: categoryOf(type, "main"),
    tools: spec.tools,
    readOnly: spec.readOnly,
    hook: spec.hook,
    model: undefined,
    prompt: (offered) => rolePrompt(type, offered),
  };
}

export function customRole(agent: CustomAgent): ResolvedRole {
  const section = [`## Your role: ${agent.name}`, agent.description, ...(agent.prompt ? [agent.prompt] : [])].join("\n\n");
  return {
    name: agent.name,
    source: agent.source,
    agentType: `custom:${agent.name}`,
    handoffType: HANDOFF_TYPE_OF[agent.category],
    category: agent.category,
    tools: agent.tools,
    readOnly: agent.readOnly,
    hook: HOOK_OF[agent.category],
    model: agent.model === "inherit" ? undefined : agent.model,
    prompt: () => section,
  };
}

/** `resolveRole`, reading the custom agents' files only for a name that is not built in. */
export function resolveRoleIn(name: string, directories: CustomAgentDirectories): ResolvedRole {
  return isAgentType(name) ? builtinRole(name) : resolveRole(name, loadCustomAgents(directories).agents);
}
