import { renderReference } from "../../context/context-reference.js";
import type { PreparedWindow } from "../../context/virtual-context-manager.js";
import { alternatingMessages } from "../../llm/conversation.js";
import type { ModelRequest } from "../../llm/model-types.js";
import type { ContextReference } from "../../store/content-types.js";
import type { AgentEvent } from "../agent-events.js";
import type { AgentInstance, HandoffPlan, QualityHooks } from "../quality-hooks.js";
import { windowMisfit, type WindowMisfit } from "../window-fit.js";
import type { AgentRun } from "./agent-run.js";
import type { AgentLoopDeps } from "./loop-deps.js";

export interface PreparedTurn {
  request: ModelRequest;
  /** What the request puts in the window; the room kept for the answer is not counted. */
  contextTokens: number;
}

/**
 * The first phase of a turn: the request's fixed part (system prompt, what
 * the prompt's knowledge adds, tool definitions, the room kept for the
 * answer), the window prepared over the conversation, the handoff
 * controller's plan for it applied, and the window reported as it will be sent.
 */
export async function* prepareTurn(
  deps: AgentLoopDeps,
  run: AgentRun,
  turn: number,
): AsyncGenerator<AgentEvent, PreparedTurn | { misfit: WindowMisfit }> {
  const { contextManager, quality, maxTokens } = deps;
  const tools = deps.tools.specs();
  const systemContext = (await deps.systemContextFor?.(run.prompt, run.lastError)) || undefined;
  const prefixTokens = prefixTokensOf(deps, tools, systemContext);
  // Checked again before each call: the count learns the model's tokenizer, and what the knowledge adds varies.
  const misfit = misfitOf(deps, prefixTokens, 0);
  if (misfit) return { misfit };
  const fixedTokens = prefixTokens + maxTokens;
  let window = await contextManager.prepare(deps.recorder, fixedTokens);
  yield* reportEvictions(quality, turn, window.evictions);
  const plan = quality?.planFor(turn, window.usedTokens - maxTokens);
  if (plan) window = yield* applyPlan(deps, plan, window, turn);
  const predictedQuality = quality?.predictedQuality();
  const contextTokens = window.usedTokens - maxTokens;
  yield {
    type: "context_window",
    turn,
    usedTokens: contextTokens,
    windowTokens: contextManager.windowTokens,
    references: window.context.references.length,
    ...(predictedQuality !== undefined ? { predictedQuality } : {}),
  };
  const request = {
    system: deps.systemPrompt,
    ...(systemContext ? { systemContext } : {}),
    messages: alternatingMessages(window.messages),
    tools,
    maxTokens,
  };
  return { request, contextTokens };
}

/** The request's fixed part: the system prompt, what the prompt's knowledge adds, and the tool definitions. */
export function prefixTokensOf(
  deps: Pick<AgentLoopDeps, "systemPrompt" | "tokenCounter">,
  tools: readonly unknown[],
  systemContext?: string,
): number {
  const { tokenCounter } = deps;
  return (
    tokenCounter.count(deps.systemPrompt) +
    (systemContext ? tokenCounter.count(systemContext) : 0) +
    tokenCounter.count(JSON.stringify(tools))
  );
}

/** Whether a request can carry `promptTokens` of conversation beside its fixed part and what eviction cannot move out. */
export function misfitOf(
  deps: Pick<AgentLoopDeps, "contextManager" | "maxTokens">,
  prefixTokens: number,
  promptTokens: number,
): WindowMisfit | undefined {
  const { contextManager } = deps;
  return windowMisfit({
    windowTokens: contextManager.windowTokens,
    prefixTokens,
    answerTokens: deps.maxTokens,
    floorTokens: contextManager.floorTokens(),
    promptTokens,
  });
}

/** The instance answering from now on: the recorder records as it, and the window is its own, starting with its preamble. */
export function enter(deps: Pick<AgentLoopDeps, "recorder" | "contextManager">, instance: AgentInstance): void {
  deps.recorder.switchAgent({ agentId: instance.agentId, agentType: instance.agentType });
  deps.contextManager.setAgent(instance.agentId, instance.agentType);
  deps.contextManager.setPreamble(instance.preamble);
}

/**
 * The one place the handoff controller's plan takes effect, on the window
 * just prepared: a knowledge agent evicts further and goes on; any other
 * agent's window is trimmed, the controller stores the handoff, and a
 * fresh instance answers from the window fitted for it.
 */
async function* applyPlan(
  deps: AgentLoopDeps,
  plan: HandoffPlan,
  window: PreparedWindow,
  turn: number,
): AsyncGenerator<AgentEvent, PreparedWindow> {
  const { contextManager, recorder, quality } = deps;
  if (plan.action === "evict") {
    const evicted = await contextManager.evictFrom(recorder, window, plan.targetTokens);
    yield* reportEvictions(quality, turn, evicted.evictions);
    return evicted;
  }
  const started = performance.now();
  const trimmed = await contextManager.trim(recorder, window, plan.keepTokens);
  enter(deps, await plan.commit(trimmed.reference?.id));
  const successor = await contextManager.prepareSuccessor(recorder, trimmed);
  const { fromAgent, toAgent, handoffIndex, reason, contextTokensBefore, predictedQuality } = plan;
  yield {
    type: "handoff",
    turn,
    fromAgent,
    toAgent,
    handoffIndex,
    reason,
    contextTokensBefore,
    contextTokensAfter: successor.usedTokens - deps.maxTokens,
    predictedQuality,
    ...(trimmed.reference ? { referenceId: trimmed.reference.id } : {}),
    // The handoff's whole cost: the controller's planning, the trim, the stored state and the new window (no model call).
    durationMs: plan.planMs + (performance.now() - started),
  };
  yield* reportEvictions(quality, turn, successor.evictions);
  return successor;
}

async function* reportEvictions(
  quality: QualityHooks | undefined,
  turn: number,
  evictions: readonly ContextReference[],
): AsyncGenerator<AgentEvent> {
  for (const reference of evictions) {
    quality?.evicted(reference);
    yield { type: "context_eviction", turn, reference, marker: renderReference(reference) };
  }
}
