import { renderReference } from "../context/context-reference.js";
import type { Prefetcher } from "../context/prefetch/create-prefetcher.js";
import { predictedQuery, situationOf, withToolResults } from "../context/prefetch/prefetch-situation.js";
import { renderAugmentation, withoutPresent, type AugmentedQuery, type PrefetchSituation } from "../context/prefetch/query-augmenter.js";
import type { PrefetchFuture } from "../context/prefetch/speculative-prefetcher.js";
import type { PreparedWindow, VirtualContextManager } from "../context/virtual-context-manager.js";
import { alternatingMessages } from "../llm/conversation.js";
import { ModelError } from "../llm/model-errors.js";
import { EMPTY_USAGE, addUsage, type ModelProvider, type ModelResponse, type ToolUseBlock, type Usage } from "../llm/model-types.js";
import type { TokenCounter } from "../llm/token-counter.js";
import type { ContextReference } from "../store/content-types.js";
import { streamToolRuns } from "./tool-output-stream.js";
import type { AgentEvent, AgentResult, AgentStopReason } from "./agent-events.js";
import type { AgentInstance, HandoffPlan, QualityHooks } from "./quality-hooks.js";
import { responseText, type InjectedContext, type SessionRecorder } from "./session-recorder.js";
import { FatalToolError, type ToolContext } from "./tools/tool.js";
import type { ToolRegistry, ToolRunResult } from "./tools/tool-registry.js";

export interface AgentLoopDeps {
  provider: ModelProvider;
  tools: ToolRegistry;
  toolContext: Omit<ToolContext, "signal">;
  recorder: SessionRecorder;
  systemPrompt: string;
  /**
   * Seed 003's context-aware adapter, as a hook of the loop: what the
   * prompt's knowledge and memory add after the system prompt, asked before
   * each model call (the window counts it). Undefined or empty: nothing.
   */
  systemContextFor?: (prompt: string, lastError?: string) => Promise<string | undefined>;
  maxTurns: number;
  /** Most output tokens per call; the window always keeps room for them. */
  maxTokens: number;
  tokenCounter: TokenCounter;
  /** Builds each request's window, evicting to references when needed. */
  contextManager: VirtualContextManager;
  /** Puts relevant code and history in front of the model before it asks (absent: no prefetch). */
  prefetcher?: Prefetcher;
  /** A write tool changed a file (for the checkpoints /undo restores), with the prompt and call it answered. */
  onFileWrite?: (where: { promptTurn: number; toolUseId: string }, write: FileWrite) => void;
  /** The handoff controller: told what each turn did, asked before each model call for a plan, which the loop applies. */
  quality?: QualityHooks;
  /** Concurrent calls (sub-agents) of one response that may run at once (`agents.maxParallel`; default 1). */
  maxParallel?: number;
}

type FileWrite = Parameters<NonNullable<ToolContext["recordWrite"]>>[0];

/** How long the loop waits for a speculative prefetch (seed: GetIfReady(10 ms)). */
const PREFETCH_WAIT_MS = 10;

const INTERRUPTED_RESULT = "The user interrupted before this tool ran.";

/**
 * The agent loop: send the conversation, stream the answer, run the tools it
 * asks for, send their results back, until the model ends its turn or the
 * turn limit is reached. Tool failures go back to the model as results; a
 * failed model call (after the provider's retries) ends the run with a typed
 * error. Everything is recorded as it happens.
 */
export async function* runAgent(deps: AgentLoopDeps, prompt: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult> {
  const { provider, recorder } = deps;
  let usage: Usage = EMPTY_USAGE;
  let turns = 0;
  let toolCalls = 0;
  let lastText = "";
  /** The last failed tool call's message, for the context hook (a fix learned for it is a Known Solution). */
  let lastError: string | undefined;
  /**
   * What prefetch put in front of the model during this run, and what the
   * model wrote and called: an injected item counts as used when anything
   * later in the run cites it (a model often reads and searches first, and
   * cites in its final answer).
   */
  const runAugmentations: AugmentedQuery[] = [];
  const runTexts: string[] = [];
  const runTargets: string[] = [];
  const finish = (stopReason: AgentStopReason, error?: AgentResult["error"]): AgentResult => {
    for (const augmented of runAugmentations) deps.prefetcher?.metrics.recordOutcome(augmented, runTexts.join("\n"), runTargets);
    runAugmentations.length = 0;
    return {
      sessionId: recorder.session.id,
      response: lastText,
      stopReason,
      turns,
      toolCalls,
      usage,
      ...(error ? { error } : {}),
    };
  };
  /** Ends the run; one that ended without an answer says so in the conversation, after what had arrived. */
  async function* end(stopReason: AgentStopReason, error?: AgentResult["error"], partial = ""): AsyncGenerator<AgentEvent, AgentResult> {
    const note = unansweredNote(stopReason, error);
    if (note) await recorder.closeUnanswered(recorder.currentTurn, partial, note);
    return yield* done(finish(stopReason, error));
  }

  if (deps.quality) enter(deps, deps.quality.instance);
  // A session cut by a crash between tool calls and their results cannot be sent as it is;
  // one cut before an answer says so, so that the new prompt does not merge with the unanswered one.
  await recorder.answerUnfinishedCalls();
  await recorder.closeUnanswered(recorder.currentTurn, "", "not answered: the run stopped before an answer (the process ended)");
  const promptTurn = recorder.currentTurn + 1;
  const quality = deps.quality;
  quality?.promptStarted(prompt);
  /** The size of the last request sent, for the quality observation of its turn. */
  let sentTokens = 0;
  /** A turn that was under way when the run stopped still gets its observation. */
  let turnOpen = false;
  const closeTurn = (turn: number, interrupted = false) => {
    if (!turnOpen) return;
    if (interrupted) quality?.interrupted();
    quality?.turnFinished(turn, sentTokens);
    turnOpen = false;
  };
  const startPrefetch = (query: string | undefined) =>
    query && deps.prefetcher
      ? deps.prefetcher.speculative.start(query, deps.contextManager.remainingTokens(), situationOf(recorder.rows(), recorder.session.id, recorder.currentTurn + 1))
      : undefined;
  const promptPrefetch = startPrefetch(prompt);
  yield {
    type: "session_start",
    sessionId: recorder.session.id,
    resumed: recorder.messages().length > 0,
    provider: provider.name,
    model: provider.model,
  };
  const promptAugmentation = await takePrefetch(situationOf(recorder.rows(), recorder.session.id, promptTurn), promptPrefetch);
  let parentId = await recorder.recordPrompt(prompt, promptTurn, promptAugmentation?.injected);
  if (promptAugmentation) yield prefetchEvent(promptTurn, promptAugmentation.augmented);
  if (promptAugmentation) runAugmentations.push(promptAugmentation.augmented);

  for (;;) {
    if (turns >= deps.maxTurns) return yield* end("max_turns");
    if (signal.aborted) return yield* end("interrupted");
    const turn = recorder.nextTurn();
    turns++;
    yield { type: "turn_start", turn };
    quality?.turnStarted(turn);

    const tools = deps.tools.specs();
    const systemContext = (await deps.systemContextFor?.(prompt, lastError)) || undefined;
    const fixedTokens =
      deps.tokenCounter.count(deps.systemPrompt) + (systemContext ? deps.tokenCounter.count(systemContext) : 0) + deps.tokenCounter.count(JSON.stringify(tools)) + deps.maxTokens;
    let window = await deps.contextManager.prepare(recorder, fixedTokens);
    yield* reportEvictions(quality, turn, window.evictions);
    const plan = quality?.planFor(turn, window.usedTokens - deps.maxTokens);
    if (quality && plan) window = yield* applyPlan(deps, quality, plan, window, turn);
    const predictedQuality = quality?.predictedQuality();
    yield {
      type: "context_window",
      turn,
      // What the request puts in the window; the room kept for the answer is not "used".
      usedTokens: window.usedTokens - deps.maxTokens,
      windowTokens: deps.contextManager.windowTokens,
      references: window.context.references.length,
      ...(predictedQuality !== undefined ? { predictedQuality } : {}),
    };
    const request = { system: deps.systemPrompt, ...(systemContext ? { systemContext } : {}), messages: alternatingMessages(window.messages), tools, maxTokens: deps.maxTokens };
    const estimated = window.usedTokens - deps.maxTokens;
    sentTokens = estimated;
    turnOpen = true;
    let response: ModelResponse | undefined;
    // What has arrived of the answer: recorded if the call never completes.
    let partial = "";
    try {
      for await (const event of provider.stream(request, signal)) {
        if (event.type === "text_delta") {
          partial += event.text;
          yield { type: "text_delta", text: event.text };
        } else if (event.type === "retry") {
          partial = "";
          yield { type: "retry", attempt: event.attempt, delayMs: event.delayMs, reason: event.reason };
        } else if (event.type === "complete") response = event.response;
      }
    } catch (raw) {
      const error = raw instanceof ModelError ? raw : new ModelError(String((raw as Error)?.message ?? raw), "unknown", false);
      if (error.kind === "aborted" || signal.aborted) {
        closeTurn(turn, true);
        return yield* end("interrupted", undefined, partial);
      }
      yield { type: "error", kind: error.kind, message: error.message, fatal: true };
      return yield* end("error", { kind: error.kind, message: error.message }, partial);
    }
    if (!response) {
      yield { type: "error", kind: "unknown", message: "The model stream ended without a response.", fatal: true };
      return yield* end("error", { kind: "unknown", message: "The model stream ended without a response." }, partial);
    }

    deps.tokenCounter.calibrate(estimated, response.usage.inputTokens + response.usage.cacheReadTokens + response.usage.cacheWriteTokens);
    usage = addUsage(usage, response.usage);
    const recorded = await recorder.recordResponse(turn, response, parentId);
    parentId = recorded.responseId;
    lastText = responseText(response);
    const calls = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    runTexts.push(lastText);
    runTargets.push(...calls.map((call) => JSON.stringify(call.input)));
    yield { type: "assistant_message", turn, text: lastText, toolCalls: calls.length };
    yield { type: "usage", turn, usage: response.usage, total: usage };
    quality?.answerStopped(response.stopReason);

    if (calls.length === 0 || response.stopReason !== "tool_use") {
      closeTurn(turn);
      return yield* done(finish(response.stopReason === "max_tokens" ? "max_tokens" : "end_turn"));
    }

    const results: Array<{ call: ToolUseBlock; result: ToolRunResult; entryId?: string }> = [];
    lastError = undefined;
    const toolPrefetches: Array<PrefetchFuture | undefined> = [];
    for (const batch of callBatches(calls, (name) => deps.tools.isConcurrent(name))) {
      if (signal.aborted) {
        for (const call of batch) {
          const interrupted: ToolRunResult = { output: INTERRUPTED_RESULT, isError: true, permission: "denied" };
          const entryId = await recorder.recordToolResult(turn, call, interrupted, recorded.callIds.get(call.id) ?? parentId);
          results.push({ call, result: interrupted, entryId });
        }
        continue;
      }
      for (const call of batch) {
        toolCalls++;
        yield { type: "tool_use", id: call.id, name: call.name, input: call.input };
        toolPrefetches.push(startPrefetch(predictedQuery(call.name, call.input)));
      }
      const jobs = batch.map((call) => {
        const recordWrite = deps.onFileWrite && ((write: FileWrite) => deps.onFileWrite?.({ promptTurn, toolUseId: call.id }, write));
        return {
          id: call.id,
          run: (onOutput: (chunk: string) => void, onEvent: (event: AgentEvent) => void) =>
            deps.tools.run(call, { ...deps.toolContext, signal, onOutput, onEvent, toolUseId: call.id, ...(recordWrite ? { recordWrite } : {}) }),
        };
      });
      const settled = yield* streamToolRuns(jobs, deps.maxParallel ?? 1);
      // Results in call order: the API pairs them by id, and call order keeps the stored conversation deterministic.
      for (const [index, call] of batch.entries()) {
        let result: ToolRunResult;
        try {
          result = await (settled[index] as Promise<ToolRunResult>);
        } catch (error) {
          if (!(error instanceof FatalToolError)) throw error;
          yield { type: "error", kind: "tool", message: error.message, fatal: true };
          return yield* end("error", { kind: "tool", message: error.message });
        }
        yield { type: "tool_result", id: call.id, name: call.name, ...result };
        if (result.isError && result.permission !== "denied") lastError = `${call.name}: ${result.output}`;
        quality?.toolResult(call, result);
        parentId = await recorder.recordToolResult(turn, call, result, recorded.callIds.get(call.id) ?? parentId);
        results.push({ call, result, entryId: parentId });
      }
    }
    const now = withToolResults(situationOf(recorder.rows(), recorder.session.id, turn), results);
    const toolAugmentation = await takePrefetch(now, ...toolPrefetches);
    // Every tool_use gets its tool_result, even when interrupted: the API rejects a split pair.
    await recorder.appendToolResults(turn, results, toolAugmentation?.injected);
    if (toolAugmentation) {
      yield prefetchEvent(turn, toolAugmentation.augmented);
      runAugmentations.push(toolAugmentation.augmented);
    }
    closeTurn(turn, signal.aborted);
    if (signal.aborted) return yield* end("interrupted");
    // A call that answered the prompt (a routed agent's answer) ends the run: that answer is the response, recorded as one.
    const answered = results.find((each) => each.result.endsRun && !each.result.isError)?.result.endsRun;
    if (answered) {
      // Shown and streamed as the answer is: the screen and the printers need nothing else.
      yield { type: "text_delta", text: answered.response };
      yield { type: "assistant_message", turn, text: answered.response, toolCalls: 0 };
      await recorder.closeUnanswered(turn, answered.response, answered.note);
      lastText = answered.response;
      runTexts.push(answered.response);
      return yield* done(finish("end_turn"));
    }
  }
}

/** The instance answering from now on: the recorder records as it, and the window is its own, starting with its preamble. */
function enter(deps: AgentLoopDeps, instance: AgentInstance): void {
  deps.recorder.switchAgent({ agentId: instance.agentId, agentType: instance.agentType });
  deps.contextManager.setAgent(instance.agentId, instance.agentType);
  deps.contextManager.setPreamble(instance.preamble);
}

async function* reportEvictions(quality: QualityHooks | undefined, turn: number, evictions: readonly ContextReference[]): AsyncGenerator<AgentEvent> {
  for (const reference of evictions) {
    quality?.evicted(reference);
    yield { type: "context_eviction", turn, reference, marker: renderReference(reference) };
  }
}

/**
 * The one place the handoff controller's plan takes effect, on the window
 * just prepared: a knowledge agent evicts further and goes on; any other
 * agent's window is trimmed, the controller stores the handoff, and a
 * fresh instance answers from the window fitted for it.
 */
async function* applyPlan(deps: AgentLoopDeps, quality: QualityHooks, plan: HandoffPlan, window: PreparedWindow, turn: number): AsyncGenerator<AgentEvent, PreparedWindow> {
  const { contextManager, recorder } = deps;
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

/** A response's calls as they run: a run of consecutive concurrent calls together, every other call alone, in order. */
function callBatches(calls: readonly ToolUseBlock[], concurrent: (name: string) => boolean): ToolUseBlock[][] {
  const batches: ToolUseBlock[][] = [];
  for (const call of calls) {
    const last = batches.at(-1);
    if (last && concurrent(call.name) && concurrent(last[0]?.name ?? "")) last.push(call);
    else batches.push([call]);
  }
  return batches;
}

/** What the conversation says of a run that ended on an unanswered user message; nothing for a finished answer. */
function unansweredNote(stopReason: AgentStopReason, error: AgentResult["error"]): string | undefined {
  switch (stopReason) {
    case "interrupted":
      return "interrupted by the user";
    case "max_turns":
      return "stopped at the turn limit (agent.maxTurns) before answering";
    case "error":
      return `not answered: ${error?.message ?? "the model call failed"}`;
    default:
      return undefined;
  }
}

/** The first ready prefetch with something to inject that the window does not hold yet, within the wait budget. */
async function takePrefetch(
  situation: PrefetchSituation,
  ...futures: Array<PrefetchFuture | undefined>
): Promise<{ augmented: AugmentedQuery; injected: InjectedContext } | undefined> {
  for (const future of futures) {
    const ready = await future?.getIfReady(PREFETCH_WAIT_MS);
    const augmented = ready && withoutPresent(ready, situation);
    if (!augmented || augmented.excerpts.length + augmented.summaries.length === 0) continue;
    const relatedFiles = [...augmented.excerpts, ...augmented.summaries].flatMap((item) => (item.path ? [item.path] : []));
    return { augmented, injected: { text: renderAugmentation(augmented), relatedFiles } };
  }
  return undefined;
}

function prefetchEvent(turn: number, augmented: AugmentedQuery): AgentEvent {
  return {
    type: "prefetch",
    turn,
    excerpts: augmented.excerpts.map((excerpt) => ({ source: excerpt.source, confidence: excerpt.confidence })),
    hints: augmented.summaries.map((summary) => ({ source: summary.source, confidence: summary.confidence })),
    tokens: augmented.tokensUsed,
    tier: augmented.tierReached,
  };
}

async function* done(result: AgentResult): AsyncGenerator<AgentEvent, AgentResult> {
  yield { type: "done", result };
  return result;
}
