import type { ToolDefinition, ToolOutput } from "../../agent/tools/tool.js";
import { errorSignature } from "../../agent/tools/role-tools/recurrence.js";
import type { KnowledgeStore } from "../../content-store/knowledge-store.js";
import { describeFix, judged, type AgentLearningAction, AgentLearningEngine, NEW_CONFIDENCE } from "../agent-learning-engine.js";
import type { SessionLimits } from "../session-limits.js";
import { maskSecretsIn } from "../../security/mask-values.js";
import { maskSecrets } from "../../security/secrets.js";
import { errorMessage } from "../../errors.js";

export interface AgentLearningToolsDeps {
  store: Pick<KnowledgeStore, "save" | "learning" | "rejudge">;
  limits: SessionLimits;
  sessionId(): string;
}

/**
 * The learning engine as a decorator over a session's tools: every
 * call's outcome goes to the engine, and what it decides is stored as an
 * agent learning (a Known Solution for later prompts). It only watches:
 * the call's result, or its error, is passed on as it was, whatever
 * storing the learning does.
 */
export function learnFromTools(tools: readonly ToolDefinition[], deps: AgentLearningToolsDeps): ToolDefinition[] {
  const engine = new AgentLearningEngine(errorSignature, (tool, signature) => deps.store.learning(tool, signature) !== undefined);
  const watch = (tool: string, input: unknown, isError: boolean, output: string) => {
    try {
      // Masked before the engine clips them into a learning: a clipped key no longer looks like one.
      const observed = { tool, input: maskSecretsIn(input).value, isError, output: isError ? maskSecrets(output).text : output };
      for (const action of engine.observe(observed)) apply(action, deps);
    } catch {
      // Learning is a side note: a failure to record one must not touch the call it watched.
    }
  };
  return tools.map((tool) => ({
    ...tool,
    execute: async (input, context): Promise<ToolOutput> => {
      let output: ToolOutput;
      try {
        output = await tool.execute(input, context);
      } catch (error) {
        watch(tool.name, input, true, errorMessage(error));
        throw error;
      }
      watch(tool.name, input, output.isError === true, output.output);
      return output;
    },
  }));
}

function apply(action: AgentLearningAction, deps: AgentLearningToolsDeps): void {
  if (action.kind === "learn") {
    if (!deps.limits.reserve("learnings")) return;
    try {
      deps.store.save({
        layer: "agent_learnings",
        kind: "learning",
        key: `${action.tool}: ${action.error}`.slice(0, 120),
        content: `When ${action.tool} failed with "${action.error}", this worked: ${describeFix(action.failedInput, action.workingInput)}.`,
        source: "agent",
        confidence: NEW_CONFIDENCE,
        details: { tool: action.tool, signature: action.signature, successes: 1, failures: 0 },
        sessionId: deps.sessionId() || null,
      });
    } catch (error) {
      deps.limits.release("learnings");
      throw error;
    }
    return;
  }
  const learning = deps.store.learning(action.tool, action.signature);
  if (!learning) return;
  const counts = learning.details as { successes?: number; failures?: number };
  const details = {
    ...learning.details,
    successes: (counts.successes ?? 0) + (action.kind === "confirm" ? 1 : 0),
    failures: (counts.failures ?? 0) + (action.kind === "refute" ? 1 : 0),
  };
  deps.store.rejudge(learning, judged(learning.confidence, action.kind), details);
}
