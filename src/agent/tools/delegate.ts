import * as z from "zod";
import { AGENT_TYPES, type AgentType } from "../../roles/agent-types.js";
import type { CustomAgent } from "../../roles/custom-agents.js";
import { roleOf } from "../../roles/role-registry.js";
import { defineTool, toolDescription, type ToolContext, type ToolDefinition, type ToolOutput } from "./tool.js";

/** `Name`: the built-in types, or any agent name once custom agents are offered (`delegableAgents(custom)`). */
export interface DelegateDeps<Name extends string = AgentType> {
  /** The agents this one may start, with what each is for (named in the description the model reads). */
  agents: ReadonlyArray<{ name: Name; description: string }>;
  delegate(request: { agent: Name; task: string; context?: string; maxTokens: number }, context: ToolContext): Promise<ToolOutput>;
}

/**
 * Every built-in role but the guide, which routes the user's prompts rather
 * than taking tasks; then the custom agents given, by their names (the
 * caller resolves a name with `resolveRole`).
 */
export function delegableAgents(): Array<{ name: AgentType; description: string }>;
export function delegableAgents(custom: readonly CustomAgent[]): Array<{ name: string; description: string }>;
export function delegableAgents(custom: readonly CustomAgent[] = []): Array<{ name: string; description: string }> {
  const builtins = AGENT_TYPES.filter((type) => type !== "guide").map((type) => ({ name: type, description: roleOf(type).description }));
  return [...builtins, ...custom.map((agent) => ({ name: agent.name, description: `${agent.description} (custom, ${agent.source})` }))];
}

/** `delegate(agent, task, max_tokens, context?)`: a sub-agent in its own context. */
export function createDelegateTool<Name extends string>(deps: DelegateDeps<Name>): ToolDefinition {
  const names = deps.agents.map((agent) => agent.name) as [Name, ...Name[]];
  const catalogue = deps.agents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  return defineTool({
    name: "delegate",
    description: `${toolDescription(import.meta.url, "delegate.txt")}\n\nAgents:\n${catalogue}`,
    schema: z.strictObject({
      agent: z.enum(names).describe("Which agent takes the task."),
      task: z.string().min(1).max(20_000).describe("The task, complete on its own: the agent sees nothing else of this conversation."),
      max_tokens: z.number().int().min(500).max(16_000).default(4_000).describe("Most tokens of its answer to bring back (500–16000)."),
      context: z.string().max(1_000).optional().describe("What you are doing, so the agent can aim its answer."),
    }),
    // The sub-agent's own calls go through the same policy and approver; starting one changes nothing by itself.
    kind: "read",
    concurrent: true,
    // The sub-agent stops on the caller's signal and records how it ended.
    stopsOnAbort: true,
    targets: () => ({}),
    execute: (input, context) =>
      deps.delegate(
        { agent: input.agent, task: input.task, maxTokens: input.max_tokens, ...(input.context ? { context: input.context } : {}) },
        context,
      ),
  });
}
