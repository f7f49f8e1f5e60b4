import * as z from "zod";
import type { AgentListing } from "../../../roles/agent-catalog.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { renderWithHeader } from "./output-budget.js";

export interface AgentCapabilitiesDeps {
  /** The agents as `sylk agents` lists them. */
  agents(): AgentListing[];
  /** What the guide's routing learned of an agent (its mean outcome and how many), if anything. */
  affinity?(agent: string): { mean: number; observations: number } | undefined;
}

/** `get_agent_capabilities()`: the role registry as the model can use it. */
export function createGetAgentCapabilitiesTool(deps: AgentCapabilitiesDeps): ToolDefinition {
  return defineTool({
    name: "get_agent_capabilities",
    description: toolDescription(import.meta.url, "get-agent-capabilities.txt"),
    schema: z.strictObject({}),
    kind: "read",
    targets: () => ({}),
    async execute() {
      const agents = deps.agents();
      let learned = 0;
      const blocks = agents.map((agent) => {
        const affinity = deps.affinity?.(agent.name);
        if (affinity) learned++;
        return [
          `- ${agent.name} (${agent.category}${agent.read_only ? ", read-only" : ""}${agent.source === "builtin" ? "" : `, ${agent.source} agent`}): ${agent.description}`,
          `  tools: ${agent.tools.join(", ")}`,
          `  model: ${agent.model === "inherit" ? "the session's" : agent.model}`,
          ...(affinity ? [`  affinity: ${affinity.mean.toFixed(2)} over ${affinity.observations} routed prompts`] : []),
        ].join("\n");
      });
      // No affinities are learned until the guide routes prompts and sees how they went; say so rather than show priors as knowledge.
      const note = learned === 0 ? ["No routing outcomes are recorded yet, so no agent affinities."] : [];
      const { output } = renderWithHeader("agent registry", agents.length, false, [...blocks, ...note]);
      return { output, display: `${agents.length} agents` };
    },
  });
}
