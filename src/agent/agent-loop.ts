import { situationOf } from "../context/prefetch/prefetch-situation.js";
import type { ToolUseBlock } from "../llm/model-types.js";
import type { AgentEvent, AgentResult, AgentStopReason } from "./agent-events.js";
import { AgentRun } from "./loop/agent-run.js";
import type { AgentLoopDeps } from "./loop/loop-deps.js";
import { prefetchEvent, startPrefetch, takePrefetch } from "./loop/prefetch-step.js";
import { enter, misfitOf, prefixTokensOf, prepareTurn } from "./loop/prepare-turn.js";
import { runToolBatches, type ToolCallResult } from "./loop/run-tool-batches.js";
import { streamModelCall } from "./loop/stream-model-call.js";
import { responseText } from "./session-recorder.js";

export type { AgentLoopDeps };

/**
 * The agent loop: send the conversation, stream the answer, run the tools it
 * asks for, send their results back, until the model ends its turn or the
 * turn limit is reached. Each turn goes in three phases: prepare it (the
 * window, and the handoff controller's plan applied to it), stream the model
 * call, run the tool batches. Tool failures go back to the model as
 * results; a failed model call (after the provider's retries) ends the run
 * with a typed error. Everything is recorded as it happens.
 */
export async function* runAgent(deps: AgentLoopDeps, prompt: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult> {
  const { recorder, quality } = deps;
  if (quality) enter(deps, quality.instance);
  // A session cut by a crash between tool calls and their results cannot be sent as it is;
  // one cut before an answer says so, so that the new prompt does not merge with the unanswered one.
  await recorder.answerUnfinishedCalls();
  await recorder.closeUnanswered(recorder.currentTurn, "", "not answered: the run stopped before an answer (the process ended)");
  const run = new AgentRun(deps, prompt, signal);
  // Checked before the prompt is recorded: a run whose window cannot hold it sends and stores nothing.
  const misfit = misfitOf(
    deps,
    prefixTokensOf(deps, deps.tools.specs()),
    deps.tokenCounter.count(JSON.stringify([{ type: "text", text: prompt }])) + 4,
  );
  if (misfit) {
    yield sessionStart(deps);
    yield { type: "error", kind: misfit.kind, message: misfit.message, fatal: true };
    return yield* done(run.result("error", misfit));
  }
  /** Ends the run; one that ended without an answer says so in the conversation, after what had arrived. */
  async function* end(stopReason: AgentStopReason, error?: AgentResult["error"], partial = ""): AsyncGenerator<AgentEvent, AgentResult> {
    const note = unansweredNote(stopReason, error);
    if (note) await recorder.closeUnanswered(recorder.currentTurn, partial, note);
    return yield* done(run.result(stopReason, error));
  }
  yield* recordPrompt(deps, run);
  /** A Stop hook kept this run going already: its next call is told so, and may let the agent stop. */
  let stopHookActive = false;

  for (;;) {
    if (run.turns >= deps.maxTurns) return yield* end("max_turns");
    if (signal.aborted) return yield* end("interrupted");
    const turn = recorder.nextTurn();
    run.turns++;
    yield { type: "turn_start", turn };
    quality?.turnStarted(turn);

    const prepared = yield* prepareTurn(deps, run, turn);
    if ("misfit" in prepared) {
      yield { type: "error", kind: prepared.misfit.kind, message: prepared.misfit.message, fatal: true };
      return yield* end("error", prepared.misfit);
    }
    run.sent(prepared.contextTokens);
    const call = yield* streamModelCall(deps.provider, prepared.request, signal);
    if ("stopped" in call) {
      if (call.stopped === "interrupted") {
        run.closeTurn(turn, true);
        return yield* end("interrupted", undefined, call.partial);
      }
      return yield* end("error", call.error, call.partial);
    }
    const { response } = call;
    const { usage } = response;
    deps.tokenCounter.calibrate(prepared.contextTokens, usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens);
    const recorded = await recorder.recordResponse(turn, response, run.parentId);
    run.parentId = recorded.responseId;
    const calls = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    run.answered(responseText(response), calls, usage);
    yield { type: "assistant_message", turn, text: run.lastText, toolCalls: calls.length };
    yield { type: "usage", turn, usage, total: run.usage };
    quality?.answerStopped(response.stopReason);
    if (calls.length === 0 || response.stopReason !== "tool_use") {
      run.closeTurn(turn);
      const kept =
        calls.length === 0 && !signal.aborted
          ? await deps.stopHooks?.stop({ lastMessage: run.lastText, stopHookActive }, signal)
          : undefined;
      if (kept?.blocked !== undefined && !signal.aborted) {
        // The conversation goes on from the hook's reason, a note the next model call answers; agent.maxTurns still bounds it.
        stopHookActive = true;
        await recorder.recordNote(`A Stop hook did not let the work end here: ${kept.blocked}`, {
          outcome: "A Stop hook kept the agent working",
        });
        continue;
      }
      return yield* done(run.result(response.stopReason === "max_tokens" ? "max_tokens" : "end_turn"));
    }

    const ran = yield* runToolBatches(deps, run, turn, calls, recorded.callIds);
    if ("fatal" in ran) return yield* end("error", { kind: "tool", message: ran.fatal });
    run.closeTurn(turn, signal.aborted);
    if (signal.aborted) return yield* end("interrupted");
    const answered = answerIn(ran.results);
    if (answered) {
      // Shown and streamed as the answer is: the screen and the printers need nothing else.
      yield { type: "text_delta", text: answered.response };
      yield { type: "assistant_message", turn, text: answered.response, toolCalls: 0 };
      await recorder.closeUnanswered(turn, answered.response, answered.note);
      run.answered(answered.response);
      return yield* done(run.result("end_turn"));
    }
  }
}

function sessionStart({ provider, recorder }: Pick<AgentLoopDeps, "provider" | "recorder">): AgentEvent {
  return {
    type: "session_start",
    sessionId: recorder.sessionId,
    resumed: recorder.messages().length > 0,
    provider: provider.name,
    model: provider.model,
  };
}

/** The run starts: the prompt is recorded, with what prefetch found for it in time. */
async function* recordPrompt(deps: AgentLoopDeps, run: AgentRun): AsyncGenerator<AgentEvent> {
  const { recorder } = deps;
  deps.quality?.promptStarted(run.prompt);
  const prefetch = startPrefetch(deps, run.prompt);
  yield sessionStart(deps);
  const augmentation = await takePrefetch(situationOf(recorder.rows(), recorder.sessionId, run.promptTurn), prefetch);
  run.parentId = await recorder.recordPrompt(run.prompt, run.promptTurn, augmentation?.injected);
  if (augmentation?.injected) yield prefetchEvent(run.promptTurn, augmentation.augmented);
  if (augmentation) run.prefetched(augmentation.augmented);
}

/** A call that answered the prompt (a routed agent's answer) ends the run: that answer is the response, recorded as one. */
function answerIn(results: readonly ToolCallResult[]): { response: string; note: string } | undefined {
  return results.find((each) => each.result.endsRun && !each.result.isError)?.result.endsRun;
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

async function* done(result: AgentResult): AsyncGenerator<AgentEvent, AgentResult> {
  yield { type: "done", result };
  return result;
}
