import type { AgentResult } from "../../agent/agent-events.js";
import type { ToolContext, ToolOutput } from "../../agent/tools/tool.js";
import type { CustomAgent } from "../../roles/custom-agents.js";
import { resolveRole } from "../../roles/resolve-role.js";
import { newReferenceId } from "../../context/context-reference.js";
import type { ContextReference } from "../../store/content-types.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { AgentIdAllocator } from "./agent-ids.js";
import { answerGist, ChildToolCall, type SubAgentUsage } from "./child-run.js";
import type { CallerConversation, OpenChildSession } from "./child-session.js";

export interface SubAgentHostDeps {
  services: Pick<ProjectServices, "contentStore" | "handoffs">;
  /** The agent whose tool calls start sub-agents, and how deep it is (the root is 0). */
  caller: { conversation: CallerConversation; depth: number };
  openSession: OpenChildSession;
  agentIds: Pick<AgentIdAllocator, "next">;
  /** The tree's sub-agent usage: each delegation counts once. */
  usage: SubAgentUsage;
  /** The custom agents the root loaded (`.sylk/agents`, `$SYLK_HOME/agents`): `delegate` may start them. */
  customAgents: readonly CustomAgent[];
  settings: { maxTurns: number; models: Readonly<Record<string, string>> };
  /** The session's model (a sub-agent uses it unless `agents.models` names another). */
  model: string | undefined;
}

export interface DelegateRequest {
  /** A built-in type or a custom agent's name. */
  agent: string;
  task: string;
  context?: string;
  /** The answer's budget in the caller's window. */
  maxTokens: number;
}

/**
 * Runs sub-agents for one agent: each in a child session of its own (its
 * window, handoff chain, task list and checkpoints), on a signal linked to
 * the caller's, its events passed up as they happen, and only its answer,
 * within the caller's budget, returned as the tool result. Nothing of the
 * answer is lost: a clipped answer's whole text stays behind a reference.
 */
export class SubAgentHost {
  constructor(private readonly deps: SubAgentHostDeps) {}

  async delegate(request: DelegateRequest, context: ToolContext): Promise<ToolOutput> {
    const { deps } = this;
    const role = resolveRole(request.agent, deps.customAgents);
    const agentType = role.agentType;
    const agentId = deps.agentIds.next(agentType);
    const parentAgentId = deps.caller.conversation.agentId;
    const model = deps.settings.models[request.agent] ?? role.model ?? deps.model;
    const session = deps.openSession({
      role,
      placement: "pipeline",
      parent: {
        sessionId: deps.caller.conversation.id,
        toolUseId: context.toolUseId ?? "",
        agentId,
        kind: "delegate",
        depth: deps.caller.depth + 1,
      },
      asksAs: agentId,
      maxTurns: deps.settings.maxTurns,
      ...(model ? { model } : {}),
    });
    try {
      const call = new ChildToolCall(
        { agentId, agentType, session },
        context,
        { parentAgentId, kind: "delegate", task: request.task },
        deps.usage,
      );
      const result = await call.prompt(taskPrompt(request, parentAgentId));
      const answer = this.fitAnswer(result, request.maxTokens, agentId);
      call.finish({ text: answer.text, truncated: answer.truncated });
      const changed = deps.services.handoffs.filesChanged(result.sessionId).map((file) => file.path);
      const footer = [
        `— ${agentId} (${agentType}) · ${result.stopReason === "end_turn" ? "done" : result.stopReason} · ${result.turns} model calls · ${result.toolCalls} tool calls`,
        `· ${(result.usage.inputTokens + result.usage.outputTokens).toLocaleString("en-US")} tokens`,
        changed.length > 0 ? `· files changed: ${changed.join(", ")}` : "· no files changed",
      ].join(" ");
      const failed = result.stopReason === "error" || result.stopReason === "interrupted";
      const body =
        answer.text.trim() === "" ? `(${agentId} gave no answer${result.error ? `: ${result.error.message}` : ""}.)` : answer.text;
      return {
        output: `${body}\n\n${footer}`,
        // The collapsed line shows the start of the answer; the transcript view (Ctrl+O) all of it.
        display: `${agentId}: ${result.stopReason === "end_turn" ? answerGist(body) : result.stopReason}`,
        ...(failed ? { isError: true } : {}),
        ...(changed.length > 0 ? { relatedFiles: changed } : {}),
      };
    } finally {
      session.close();
    }
  }

  /** The answer within the budget; the whole of a clipped one stays retrievable through a reference to its entry. */
  private fitAnswer(result: AgentResult, maxTokens: number, agentId: string): { text: string; truncated: boolean } {
    const text = result.response;
    if (estimateTokens(text) <= maxTokens) return { text, truncated: false };
    const store = this.deps.services.contentStore;
    const answers = store
      .getByTurnRange(result.sessionId, 0, Number.MAX_SAFE_INTEGER)
      .filter((entry) => entry.contentType === "agent_response");
    const last = answers.at(-1);
    const clipped = `${text.slice(0, maxTokens * 4)}\n[… answer clipped to ${maxTokens.toLocaleString("en-US")} tokens]`;
    if (!last) return { text: clipped, truncated: true };
    const reference: ContextReference = {
      id: newReferenceId(store),
      type: "conversation",
      sessionId: this.deps.caller.conversation.id,
      agentId,
      contentIds: [last.id],
      summary: `${agentId}'s whole answer`,
      tokensSaved: estimateTokens(text) - maxTokens,
      turnRange: [last.turnNumber, last.turnNumber],
      timestamp: Date.now(),
      topics: [`${agentId} answer`],
      entities: [],
      queryHints: [],
    };
    store.storeReference(reference);
    return { text: `${clipped}: the whole answer is retrieve_context(ref_id="${reference.id}")`, truncated: true };
  }
}

function taskPrompt(request: DelegateRequest, parentAgentId: string): string {
  return [
    `[Task from ${parentAgentId}]`,
    request.task,
    ...(request.context ? ["", `What ${parentAgentId} is doing: ${request.context}`] : []),
    "",
    `Your final answer goes back to ${parentAgentId}, not to the user: make it complete on its own, cite code as path:start-end, and say what you changed, if anything.`,
  ].join("\n");
}
