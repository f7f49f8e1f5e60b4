import * as z from "zod";
import { roleOf } from "../../roles/role-registry.js";
import { CONSULT_PRIORITIES, type ConsultPriority } from "../../team/consultation-queue.js";
import { defineTool, toolDescription, type ToolContext, type ToolDefinition, type ToolOutput } from "./tool.js";

/** The knowledge agents a `consult_<type>` tool reaches; custom agents are reached through `delegate`. */
export const CONSULTABLE_AGENTS = ["librarian", "archivalist", "academic", "architect"] as const;
export type ConsultableAgent = (typeof CONSULTABLE_AGENTS)[number];

/** A consultation's answer budget: 2,000 tokens by default, within 200–8,000. */
const CONSULT_DEFAULT_TOKENS = 2_000;
const CONSULT_MIN_TOKENS = 200;
const CONSULT_MAX_TOKENS = 8_000;

/** A `ContextShareRequest` as the model fills it; the host adds request_id, the requesting agent and the timestamp. */
export interface ConsultRequest {
  target_agent_type: ConsultableAgent;
  query: string;
  max_tokens: number;
  priority: ConsultPriority;
  /** What the caller is doing, when it said. */
  context?: string;
}

export interface ConsultDeps {
  /** Asks the target's knowledge agent and returns the rendered `ContextShareResponse`. */
  consult(request: ConsultRequest, context: ToolContext): Promise<ToolOutput>;
}

/** `consult_<target>(query, max_tokens, priority, context?)`. */
export function createConsultTool(target: ConsultableAgent, deps: ConsultDeps): ToolDefinition {
  return defineTool({
    name: `consult_${target}`,
    description: `${toolDescription(import.meta.url, "consult.txt").replaceAll("{agent}", target)}\n\nThe ${target}: ${roleOf(target).description}`,
    schema: z.strictObject({
      query: z.string().min(1).describe(`The question for the ${target}, complete on its own: it sees none of your conversation.`),
      max_tokens: z
        .number()
        .int()
        .min(CONSULT_MIN_TOKENS)
        .max(CONSULT_MAX_TOKENS)
        .default(CONSULT_DEFAULT_TOKENS)
        .describe(`Most tokens of the answer to bring back (${CONSULT_MIN_TOKENS}–${CONSULT_MAX_TOKENS}).`),
      priority: z
        .enum(CONSULT_PRIORITIES)
        .default("normal")
        .describe("How urgent: low, normal, high or critical (blocking your work). Orders the waiting consultations; none is interrupted."),
      context: z.string().max(1_000).optional().describe("What you are doing, so the answer can aim at it (at most 1000 characters)."),
    }),
    // The knowledge agents only read; asking one changes nothing.
    kind: "read",
    // Consultations of one response run at once (agents.maxParallel); each knowledge agent answers one at a time.
    concurrent: true,
    // The sub-agent stops on the caller's signal and records how it ended.
    stopsOnAbort: true,
    targets: () => ({}),
    execute: (input, context) =>
      deps.consult(
        {
          target_agent_type: target,
          query: input.query,
          max_tokens: input.max_tokens,
          priority: input.priority,
          ...(input.context ? { context: input.context } : {}),
        },
        context,
      ),
  });
}
