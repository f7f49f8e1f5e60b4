import * as z from "zod";
import { defineTool, toolDescription, type ToolContext, type ToolDefinition, type ToolOutput } from "./tool.js";

export interface RouteToAgentDeps {
  /** The agents the guide may route to, with what each is for. */
  agents: ReadonlyArray<{ name: string; description: string }>;
  route(request: { agent: string; confidence: number; reasoning: string }, context: ToolContext): Promise<ToolOutput>;
}

/** The guide's `route_to_agent(agent, confidence, reasoning)`, recorded as a routing decision. */
export function createRouteToAgentTool(deps: RouteToAgentDeps): ToolDefinition {
  const names = deps.agents.map((agent) => agent.name) as [string, ...string[]];
  const catalogue = deps.agents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  return defineTool({
    name: "route_to_agent",
    description: `${toolDescription(import.meta.url, "route-to-agent.txt")}\n\nAgents:\n${catalogue}`,
    schema: z.strictObject({
      agent: z.enum(names).describe("Who answers the prompt."),
      confidence: z.number().min(0).max(1).describe("How sure you are that this agent is the right one, 0–1."),
      reasoning: z.string().min(1).max(1_000).describe("Why this agent, in a sentence or two."),
    }),
    // The routed agent's calls go through the same policy and approver; routing changes nothing by itself.
    kind: "read",
    // The routed agent stops on the caller's signal and records how it ended.
    stopsOnAbort: true,
    targets: () => ({}),
    execute: (input, context) => deps.route({ agent: input.agent, confidence: input.confidence, reasoning: input.reasoning }, context),
  });
}
