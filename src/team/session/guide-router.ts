import { randomUUID } from "node:crypto";
import type { ToolContext, ToolOutput } from "../../agent/tools/tool.js";
import { FOLLOW_UP_WINDOW_MS } from "../../learning/episode-draft.js";
import { isCorrection } from "../../signals/correction.js";
import type { Uniform } from "../../stats/random-draws.js";
import type { RoutingRepository } from "../../store/routing-repository.js";
import { type Affinity, outcomeReward, priorFrom, rankByDraw, routingBlock, UNIFORM, updated } from "../agent-affinity.js";
import type { AgentType } from "../../roles/agent-types.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { AgentIdAllocator } from "./agent-ids.js";
import { ChildToolCall, type SubAgentUsage } from "./child-run.js";
import type { CallerConversation, ChildSession, OpenChildSession } from "./child-session.js";

/**
 * Until prompts are clustered for routing, every prompt is in one context
 * (the design's fallback with learning off): an agent's affinity is its
 * record over the project.
 */
export const ROUTING_CONTEXT = "all";

export interface GuideRouterDeps {
  services: Pick<ProjectServices, "routing" | "sessions">;
  /** The guide's conversation (the routed agents are its children). */
  guide: CallerConversation;
  openSession: OpenChildSession;
  agentIds: Pick<AgentIdAllocator, "next">;
  /** The tree's sub-agent usage: each routed prompt counts once. */
  usage: SubAgentUsage;
  /** The agents a prompt may go to. */
  agents: readonly string[];
  settings: { maxTurns: number; models: Readonly<Record<string, string>> };
  model: string | undefined;
  random: Uniform;
}

interface PendingOutcome {
  decisionId: string;
  completed: boolean;
  answeredAt: number;
}

/**
 * The guide's routing: before each prompt, a
 * `[ROUTING]` block ranks the agents by a draw from their affinities; the
 * guide's `route_to_agent` gives the prompt, verbatim, to that agent's
 * long-lived conversation in this session, records the `RoutingDecision`,
 * and answers with the agent's answer. The next prompt (or the end of the
 * session) says how it went, and that teaches the affinity.
 */
export class GuideRouter {
  private readonly repository: RoutingRepository;
  private readonly routed = new Map<string, { agentId: string; session: ChildSession }>();
  private pending: PendingOutcome | undefined;
  /** The prompt being routed, as the user wrote it. */
  private prompt = "";

  constructor(private readonly deps: GuideRouterDeps) {
    this.repository = deps.services.routing;
  }

  /** The block the guide reads with the prompt; a new prompt first closes the last routing's outcome. */
  beforePrompt(prompt: string, at = Date.now()): string {
    this.closeOutcome(prompt, at);
    this.prompt = prompt;
    const candidates = this.deps.agents.map((agent) => ({ agent, affinity: this.affinityOf(agent) }));
    return routingBlock(rankByDraw(candidates, this.deps.random), ROUTING_CONTEXT);
  }

  async route(request: { agent: string; confidence: number; reasoning: string }, context: ToolContext): Promise<ToolOutput> {
    const target = this.routedAgent(request.agent, context.toolUseId ?? "");
    const prompt = this.prompt;
    const started = Date.now();
    const { guide } = this.deps;
    const call = new ChildToolCall(
      { ...target, agentType: request.agent },
      context,
      { parentAgentId: guide.agentId, kind: "routed", task: prompt },
      this.deps.usage,
    );
    const result = await call.prompt(prompt);
    // The user reads the answer whole: nothing of it is clipped.
    call.finish({ text: result.response });
    const decisionId = randomUUID();
    this.repository.record({
      id: decisionId,
      sessionId: guide.id,
      turnNumber: guide.currentTurn,
      userQuery: prompt,
      selectedAgent: request.agent,
      confidence: request.confidence,
      reasoning: request.reasoning,
      contextId: ROUTING_CONTEXT,
      routedSessionId: target.session.sessionId,
      createdAt: started,
    });
    const completed = result.stopReason === "end_turn" && result.response.trim() !== "";
    this.pending = { decisionId, completed, answeredAt: Date.now() };
    if (!completed) {
      // The guide hears why and may answer itself or route elsewhere; the failure is the routing's outcome already.
      this.closeOutcome(undefined, Date.now());
      return {
        output: `${target.agentId} did not answer (${result.stopReason}${result.error ? `: ${result.error.message}` : ""}).`,
        isError: true,
      };
    }
    return {
      output: `Routed to ${target.agentId}; its answer went to the user.`,
      display: `routed to ${target.agentId}`,
      endsRun: { response: result.response, note: `answered by ${target.agentId}, routed by ${guide.agentId}` },
    };
  }

  /** The session ends: the last routing's outcome is what it was, with no follow-up. */
  close(): void {
    this.closeOutcome(undefined, Date.now());
    for (const target of this.routed.values()) target.session.close();
    this.routed.clear();
  }

  private closeOutcome(nextPrompt: string | undefined, at: number): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    const followUp = nextPrompt !== undefined && at - pending.answeredAt <= FOLLOW_UP_WINDOW_MS;
    const reward = outcomeReward({
      completed: pending.completed,
      followUp: followUp && !isCorrection(nextPrompt ?? ""),
      correction: followUp && isCorrection(nextPrompt ?? ""),
    });
    this.repository.close(pending.decisionId, reward, (current, allContexts) => updated(current ?? priorFrom(allContexts), reward));
  }

  private affinityOf(agent: string): Affinity {
    const stored = this.repository.affinity(agent, ROUTING_CONTEXT);
    if (stored) return stored;
    const all = this.repository.allContexts(agent);
    return all ? priorFrom(all) : UNIFORM;
  }

  /** The agent's conversation in this session: opened at its first routing, found again in a continued session. */
  private routedAgent(type: string, toolUseId: string): { agentId: string; session: ChildSession } {
    const existing = this.routed.get(type);
    if (existing) return existing;
    const { services, settings } = this.deps;
    const root = this.deps.guide.id;
    const earlier = services.sessions
      .descendants(root)
      .find((child) => child.kind === "routed" && child.agentType === type && child.parentSessionId === root);
    const agentId = earlier?.agentId ?? this.deps.agentIds.next(type);
    const model = settings.models[type] ?? this.deps.model;
    const session = this.deps.openSession({
      // route_to_agent offers built-in types only (delegableAgents without custom agents).
      agentType: type as AgentType,
      // It answers the user: the full prefetch, as the agent the user talks to would have.
      placement: "main",
      parent: { sessionId: root, toolUseId, agentId, kind: "routed", depth: 1 },
      maxTurns: settings.maxTurns,
      ...(earlier ? { resume: { id: earlier.id } } : {}),
      ...(model ? { model } : {}),
    });
    const target = { agentId, session };
    this.routed.set(type, target);
    return target;
  }
}
