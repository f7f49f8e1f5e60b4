import { randomUUID } from "node:crypto";
import type { AgentEvent } from "../../agent/agent-events.js";
import type { ConsultableAgent, ConsultRequest } from "../../agent/tools/consult.js";
import { createShareContextTool, resolveSources, type ShareContextInput } from "../../agent/tools/share-context.js";
import type { ToolContext, ToolDefinition, ToolOutput } from "../../agent/tools/tool.js";
import { newReferenceId } from "../../context/context-reference.js";
import { maskSecrets } from "../../security/secrets.js";
import type { ContextReference, NewContentEntry } from "../../store/content-types.js";
import { ConsultationCancelledError, ConsultationQueue } from "../consultation-queue.js";
import { type CacheHint, fitContextShare, renderContextShare, type ShareEntry } from "../context-share.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { ProjectServices } from "../../app/project-services.js";
import type { AgentIdAllocator } from "./agent-ids.js";
import { answerGist, ChildToolCall, type SubAgentUsage } from "./child-run.js";
import type { CallerConversation, ChildSession, OpenChildSession } from "./child-session.js";

/** The caller of a consultation: who asks, from which conversation, with how much room in its window. */
export interface Consulter {
  conversation: Pick<CallerConversation, "id" | "agentId">;
  agentType: string;
  retrievalBudget: () => number;
}

export interface KnowledgeAgentsDeps {
  services: Pick<ProjectServices, "contentStore" | "sessions" | "paths">;
  /** The session tree's root: every knowledge agent is its child. */
  rootSessionId: string;
  /** Opens a knowledge agent's session in the root's tree. */
  openSession: OpenChildSession;
  agentIds: Pick<AgentIdAllocator, "next">;
  /** The tree's sub-agent usage: each consultation counts once. */
  usage: SubAgentUsage;
  settings: { maxTurns: number; models: Readonly<Record<string, string>> };
  model: string | undefined;
}

/** Tools whose results may hold content evicted from a window: an answer resting on them is `cold`. */
const EVICTED_CONTENT_TOOLS = new Set(["retrieve_context", "get_turn_range"]);

const REMINDER =
  "You have not called share_context. Call it now with your answer to the consultation above, the sources it rests on (file line ranges or entry ids), your confidence and how complete the answer is.";

/** One long-lived knowledge agent: its conversation, its queue, the answer it shared for the consultation under way. */
interface KnowledgeAgent {
  type: ConsultableAgent;
  agentId: string;
  session: ChildSession;
  queue: ConsultationQueue;
  shared: ShareContextInput | undefined;
}

/**
 * The knowledge agents of a session tree: one per type, opened at its first
 * consultation as a child of the root session, alive until the root closes, and resumed with
 * it. Each consultation is a prompt in its conversation, so what it learned
 * answering the first question is still in its window for the next. It
 * answers one consultation at a time, by priority; the caller gets a bounded
 * `ContextShareResponse`, and what did not fit stays behind a reference.
 */
export class KnowledgeAgents {
  private readonly agents = new Map<ConsultableAgent, KnowledgeAgent>();

  constructor(private readonly deps: KnowledgeAgentsDeps) {}

  async consult(request: ConsultRequest, caller: Consulter, context: ToolContext): Promise<ToolOutput> {
    const agent = this.agentOf(request.target_agent_type, context.toolUseId ?? "");
    try {
      return await agent.queue.run(request.priority, context.signal, () => this.answer(agent, request, caller, context));
    } catch (error) {
      if (!(error instanceof ConsultationCancelledError)) throw error;
      return { output: `The consultation of ${agent.agentId} was cancelled before it started.`, isError: true };
    }
  }

  close(): void {
    for (const agent of this.agents.values()) agent.session.close();
    this.agents.clear();
  }

  private agentOf(type: ConsultableAgent, toolUseId: string): KnowledgeAgent {
    const existing = this.agents.get(type);
    if (existing) return existing;
    const { services, settings } = this.deps;
    const root = this.deps.rootSessionId;
    // A continued conversation finds its knowledge agent where it left it.
    const earlier = services.sessions
      .descendants(root)
      .find((child) => child.kind === "knowledge" && child.agentType === type && child.parentSessionId === root);
    const agentId = earlier?.agentId ?? this.deps.agentIds.next(type);
    const model = settings.models[type] ?? this.deps.model;
    let agent: KnowledgeAgent;
    const shareContext: ToolDefinition = createShareContextTool({
      submit: (input) => {
        agent.shared = input;
      },
    });
    const session = this.deps.openSession({
      agentType: type,
      placement: "pipeline",
      // Every knowledge agent hangs off the root at depth 1, whoever asked first: the consult graph stays the same.
      parent: { sessionId: root, toolUseId, agentId, kind: "knowledge", depth: 1 },
      extraTools: [shareContext],
      maxTurns: settings.maxTurns,
      ...(earlier ? { resume: { id: earlier.id } } : {}),
      ...(model ? { model } : {}),
    });
    agent = { type, agentId, session, queue: new ConsultationQueue(), shared: undefined };
    this.agents.set(type, agent);
    return agent;
  }

  private async answer(agent: KnowledgeAgent, request: ConsultRequest, caller: Consulter, context: ToolContext): Promise<ToolOutput> {
    const requestId = randomUUID();
    const budget = Math.min(request.max_tokens, caller.retrievalBudget());
    agent.shared = undefined;
    const toolsUsed: string[] = [];
    const watch = (event: AgentEvent) => {
      if (event.type === "tool_use" && event.name !== "share_context") toolsUsed.push(event.name);
    };
    // Its run stops with the caller's; the agent itself stays for the next consultation.
    const call = new ChildToolCall(
      { agentId: agent.agentId, agentType: agent.type, session: agent.session },
      context,
      { parentAgentId: caller.conversation.agentId, kind: "knowledge", task: request.query },
      this.deps.usage,
    );
    const first = await call.prompt(consultationPrompt(requestId, request, caller.conversation.agentId, budget), watch);
    let result = first;
    const said = [first.response];
    // One reminder; after that what it said is the answer, with confidence and completeness not stated. Every
    // answer text is kept: a reply to the reminder ("as I said above") must not replace a substantive first answer,
    // and a reminder's run that failed leaves the first answer standing.
    if (!agent.shared && first.stopReason === "end_turn") {
      const reminded = await call.prompt(REMINDER, watch);
      if (reminded.stopReason !== "error") result = reminded;
      if (reminded.stopReason === "end_turn") said.push(reminded.response);
    }
    const interrupted = result.stopReason === "interrupted" || result.stopReason === "error";
    const shared = agent.shared as ShareContextInput | undefined;
    const answerText = shared?.answer ?? distinctTexts(said).join("\n\n");
    if (interrupted || answerText.trim() === "") {
      call.finish({ text: "", tokens: 0 });
      return {
        output: `${agent.agentId} did not answer the consultation (${result.stopReason}${result.error ? `: ${result.error.message}` : ""}).`,
        isError: true,
      };
    }
    const response = await this.shareResponse(agent, {
      requestId,
      started: call.started,
      budget,
      answerText,
      shared,
      cacheHint: cacheHintOf(toolsUsed),
      caller,
    });
    call.finish({ text: answerText, tokens: response.total_tokens, truncated: response.truncated });
    return {
      output: renderContextShare(response),
      display: `${agent.agentId}: ${answerGist(answerText)} (${response.total_tokens.toLocaleString("en-US")} tokens${response.truncated ? ", truncated" : ""})`,
      relatedFiles: response.entries.flatMap((entry) =>
        entry.content_type === "code_file" ? [entry.source.replace(/:\d+-\d+$/, "")] : [],
      ),
    };
  }

  /** Resolves the shared sources byte for byte, stores what needs an id, fits the response to the caller's budget and records it. */
  private async shareResponse(
    agent: KnowledgeAgent,
    input: {
      requestId: string;
      started: number;
      budget: number;
      answerText: string;
      shared: ShareContextInput | undefined;
      cacheHint: CacheHint;
      caller: Consulter;
    },
  ) {
    const { services } = this.deps;
    const store = services.contentStore;
    const knowledgeSession = agent.session.sessionId;
    const base = (contentType: NewContentEntry["contentType"], content: string, metadata: Record<string, unknown>): NewContentEntry => ({
      id: randomUUID(),
      sessionId: knowledgeSession,
      agentId: agent.agentId,
      agentType: agent.type,
      contentType,
      content,
      tokenCount: estimateTokens(content),
      timestamp: Date.now(),
      turnNumber: 0,
      metadata,
    });
    const pending: NewContentEntry[] = [];
    const answerEntry = base("agent_message", input.answerText, { consultation_answer: input.requestId });
    pending.push(answerEntry);
    const resolved = resolveSources(input.shared?.sources ?? [], {
      root: services.paths.root,
      getEntry: (id) => store.getByIds([id])[0],
      indexExcerpt: (excerpt) => {
        const entry = base("code_file", excerpt.content, {
          path: excerpt.path,
          start_line: excerpt.start_line,
          end_line: excerpt.end_line,
          shared_in: input.requestId,
        });
        pending.push({ ...entry, relatedFiles: [excerpt.path] });
        return { id: entry.id as string, tokenCount: entry.tokenCount as number };
      },
    });
    // Everything shared has an entry id: the overflow reference and the archivalist can find it.
    await store.indexContents(pending);
    const response = fitContextShare(
      {
        request_id: input.requestId,
        source_agent_id: agent.agentId,
        source_agent_type: agent.type,
        timestamp: input.started,
        duration: Date.now() - input.started,
        answer: { id: answerEntry.id as string, content: input.answerText },
        sources: resolved.entries,
        cache_hint: input.cacheHint,
        confidence: input.shared?.confidence ?? null,
        completeness: input.shared?.completeness ?? null,
      },
      input.budget,
      estimateTokens,
      (entries) => this.storeOverflow(entries, agent, input.caller.conversation.id),
    );
    // Masked before it is cut: the store would mask the cut text, where half a key no longer looks like one.
    const answer = maskSecrets(input.answerText).text.slice(0, 2_000);
    // The consultation is the caller's history too: its own search finds what it asked and what it was told.
    await store.indexContents([
      {
        sessionId: input.caller.conversation.id,
        agentId: input.caller.conversation.agentId,
        agentType: input.caller.agentType,
        contentType: "agent_message",
        content: `Consulted ${agent.agentId}: ${answer}`,
        tokenCount: estimateTokens(answer),
        timestamp: Date.now(),
        turnNumber: 0,
        metadata: {
          kind: "consultation",
          context_share: { ...response, entries: response.entries.map(({ content: _content, ...rest }) => rest) },
        },
      },
    ]);
    return { ...response, source_errors: resolved.errors };
  }

  private storeOverflow(entries: ShareEntry[], agent: KnowledgeAgent, callerSession: string): ContextReference {
    const store = this.deps.services.contentStore;
    const reference: ContextReference = {
      id: newReferenceId(store),
      type: "code_analysis",
      sessionId: callerSession,
      agentId: agent.agentId,
      contentIds: entries.map((entry) => entry.id),
      summary: `What ${agent.agentId} shared that did not fit the answer's budget`,
      tokensSaved: entries.reduce((sum, entry) => sum + entry.token_count, 0),
      turnRange: [0, 0],
      timestamp: Date.now(),
      topics: entries.slice(0, 3).map((entry) => entry.source),
      entities: [],
      queryHints: [],
    };
    store.storeReference(reference);
    return reference;
  }
}

function consultationPrompt(requestId: string, request: ConsultRequest, caller: string, budget: number): string {
  return [
    `[CONSULTATION request ${requestId.slice(0, 8)} from ${caller} · priority ${request.priority} · answer budget ${budget.toLocaleString("en-US")} tokens]`,
    request.query,
    ...(request.context ? [`Caller's context: ${request.context}`] : []),
  ].join("\n");
}

/** hot: answered from its window alone; warm: it searched the index or the store; cold: it brought back evicted content. */
function cacheHintOf(toolsUsed: readonly string[]): CacheHint {
  if (toolsUsed.length === 0) return "hot";
  return toolsUsed.some((tool) => EVICTED_CONTENT_TOOLS.has(tool)) ? "cold" : "warm";
}

/** The non-empty texts, each once, in order. */
function distinctTexts(texts: readonly string[]): string[] {
  return [...new Set(texts.map((text) => text.trim()).filter((text) => text !== ""))];
}
