import { describe, expect, it } from "vitest";
import { createGetAgentCapabilitiesTool } from "../../../../src/agent/tools/role-tools/get-agent-capabilities.js";
import { agentListings } from "../../../../src/roles/agent-catalog.js";
import type { CustomAgent } from "../../../../src/roles/custom-agents.js";

const reviewer: CustomAgent = {
  name: "reviewer",
  source: "project",
  path: "/repo/.sylk/agents/reviewer.md",
  category: "standalone",
  description: "Reviews naming.",
  tools: ["read_file", "grep"],
  readOnly: true,
  model: "inherit",
  prompt: "Review names.",
};

describe("get_agent_capabilities", () => {
  it("lists every built-in agent and the custom ones with category, tools, read-only and model, and says no affinities are learned yet", async () => {
    const tool = createGetAgentCapabilitiesTool({ agents: () => agentListings([reviewer]) });
    const { output } = await tool.execute({}, { root: "/repo", signal: new AbortController().signal, extraDirectories: [] });
    expect(output.split("\n")[0]).toMatch(/^source: agent registry · 11 results · tokens: \d+ · truncated: false$/);
    expect(output).toContain("- librarian (knowledge, read-only): Knows this codebase");
    expect(output).toContain(
      "- reviewer (standalone, read-only, project agent): Reviews naming.\n  tools: read_file, grep\n  model: the session's",
    );
    expect(output).toContain("No routing outcomes are recorded yet, so no agent affinities.");
  });

  it("shows what routing learned of an agent", async () => {
    const tool = createGetAgentCapabilitiesTool({
      agents: () => agentListings([]),
      affinity: (agent) => (agent === "engineer" ? { mean: 0.75, observations: 4 } : undefined),
    });
    const { output } = await tool.execute({}, { root: "/repo", signal: new AbortController().signal, extraDirectories: [] });
    expect(output).toContain("  affinity: 0.75 over 4 routed prompts");
    expect(output).not.toContain("No routing outcomes");
  });
});
