import * as z from "zod";
import type { RoutingDecision } from "../../../store/routing-repository.js";
import { defineTool, toolDescription, type ToolDefinition } from "../tool.js";
import { clampBudget } from "./output-budget.js";
import { fitBlocks, resultHeader, shownTime } from "./role-output.js";

export interface RoutingHistoryDeps {
  history(options: { pattern?: string; limit: number }): RoutingDecision[];
  availableTokens(): number;
}

/** `get_routing_history(query_pattern, limit, include_outcomes)`: the guide's past decisions. */
export function createGetRoutingHistoryTool(deps: RoutingHistoryDeps): ToolDefinition {
  return defineTool({
    name: "get_routing_history",
    description: toolDescription(import.meta.url, "get-routing-history.txt"),
    schema: z.strictObject({
      query_pattern: z.string().min(1).max(200).optional().describe("Plain text the prompt or the reasoning contains."),
      limit: z.number().int().min(1).max(50).default(10).describe("Most decisions, newest first."),
      include_outcomes: z.boolean().default(true).describe("Show how each routing went."),
      max_tokens: z.number().int().min(100).max(3_000).default(1_000).describe("Token budget (100–3000)."),
    }),
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      const decisions = deps.history({ ...(input.query_pattern ? { pattern: input.query_pattern } : {}), limit: input.limit });
      if (decisions.length === 0) {
        const why = input.query_pattern
          ? `No routing decision mentions "${input.query_pattern}".`
          : "No prompt has been routed in this project yet.";
        return { output: `${resultHeader("routing decisions", fitBlocks([], 0))}\n${why}`, display: "no routing history" };
      }
      const blocks = decisions.map((decision) => {
        const outcome = !input.include_outcomes ? "" : decision.outcome === null ? " · outcome pending" : ` · outcome ${decision.outcome}`;
        return `- ${shownTime(decision.createdAt)} · ${decision.selectedAgent} · confidence ${decision.confidence.toFixed(2)}${outcome}\n  prompt: ${decision.userQuery}\n  why: ${decision.reasoning}`;
      });
      const fitted = fitBlocks(blocks, clampBudget(input.max_tokens, deps.availableTokens()));
      return {
        output: [resultHeader("routing decisions", fitted), ...fitted.kept].join("\n"),
        display: `${fitted.kept.length} routing decisions`,
      };
    },
  });
}
