import { predictedQuery, situationOf, withToolResults } from "../../context/prefetch/prefetch-situation.js";
import type { PrefetchFuture } from "../../context/prefetch/speculative-prefetcher.js";
import type { ToolUseBlock } from "../../llm/model-types.js";
import type { AgentEvent } from "../agent-events.js";
import { streamToolRuns, type ToolRunJob } from "../tool-output-stream.js";
import { FatalToolError } from "../tools/tool.js";
import type { ToolRunResult } from "../tools/tool-registry.js";
import type { AgentRun } from "./agent-run.js";
import type { AgentLoopDeps, FileWrite } from "./loop-deps.js";
import { prefetchEvent, startPrefetch, takePrefetch } from "./prefetch-step.js";

const INTERRUPTED_RESULT = "The user interrupted before this tool ran.";

export interface ToolCallResult {
  call: ToolUseBlock;
  result: ToolRunResult;
  entryId?: string;
}

/** How the calls ended: every one with its result, or a tool failed in a way that ends the run. */
export type ToolBatchesOutcome = { results: ToolCallResult[] } | { fatal: string };

/**
 * The third phase of a turn: the response's tool calls run, a run of
 * concurrent calls together and every other call alone, in order, each
 * result recorded as it arrives and passed to the handoff controller; then
 * all of them go back to the model as one message (with what prefetch found
 * meanwhile). A call the user interrupted before it ran still gets a
 * result: the API rejects a tool_use without its tool_result.
 */
export async function* runToolBatches(
  deps: AgentLoopDeps,
  run: AgentRun,
  turn: number,
  calls: readonly ToolUseBlock[],
  callIds: ReadonlyMap<string, string>,
): AsyncGenerator<AgentEvent, ToolBatchesOutcome> {
  const { recorder, quality } = deps;
  const results: ToolCallResult[] = [];
  run.lastError = undefined;
  const prefetches: Array<PrefetchFuture | undefined> = [];
  for (const batch of callBatches(calls, (name) => deps.tools.isConcurrent(name))) {
    if (run.signal.aborted) {
      for (const call of batch) {
        const interrupted: ToolRunResult = { output: INTERRUPTED_RESULT, isError: true, permission: "denied" };
        const entryId = await recorder.recordToolResult(turn, call, interrupted, callIds.get(call.id) ?? run.parentId);
        results.push({ call, result: interrupted, entryId });
      }
      continue;
    }
    for (const call of batch) {
      run.toolCalls++;
      yield { type: "tool_use", id: call.id, name: call.name, input: call.input };
      prefetches.push(startPrefetch(deps, predictedQuery(call.name, call.input)));
    }
    const settled = yield* streamToolRuns(
      batch.map((call) => toolJob(deps, run, call)),
      deps.maxParallel ?? 1,
    );
    // Results in call order: the API pairs them by id, and call order keeps the stored conversation deterministic.
    for (const running of settled) {
      let ran: { call: ToolUseBlock; result: ToolRunResult };
      try {
        ran = await running;
      } catch (error) {
        if (!(error instanceof FatalToolError)) throw error;
        yield { type: "error", kind: "tool", message: error.message, fatal: true };
        return { fatal: error.message };
      }
      const { call, result } = ran;
      yield { type: "tool_result", id: call.id, name: call.name, ...result };
      if (result.isError && result.permission !== "denied") run.lastError = `${call.name}: ${result.output}`;
      quality?.toolResult(call, result);
      run.parentId = await recorder.recordToolResult(turn, call, result, callIds.get(call.id) ?? run.parentId);
      results.push({ call, result, entryId: run.parentId });
    }
  }
  const now = withToolResults(situationOf(recorder.rows(), recorder.sessionId, turn), results);
  const augmentation = await takePrefetch(now, ...prefetches);
  // Every tool_use gets its tool_result, even when interrupted: the API rejects a split pair.
  await recorder.appendToolResults(turn, results, augmentation?.injected);
  if (augmentation?.injected) yield prefetchEvent(turn, augmentation.augmented);
  if (augmentation) run.prefetched(augmentation.augmented);
  return { results };
}

/** One call as a job of the tool stream: run with the run's signal, its writes recorded for the prompt's checkpoints. */
function toolJob(deps: AgentLoopDeps, run: AgentRun, call: ToolUseBlock): ToolRunJob<{ call: ToolUseBlock; result: ToolRunResult }> {
  const recordWrite =
    deps.onFileWrite && ((write: FileWrite) => deps.onFileWrite?.({ promptTurn: run.promptTurn, toolUseId: call.id }, write));
  const context = { ...deps.toolContext, signal: run.signal, toolUseId: call.id, ...(recordWrite ? { recordWrite } : {}) };
  return {
    id: call.id,
    run: async (onOutput, onEvent) => ({ call, result: await deps.tools.run(call, { ...context, onOutput, onEvent }) }),
  };
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
