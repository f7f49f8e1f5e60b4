import type { AugmentedQuery } from "../../context/prefetch/query-augmenter.js";
import { EMPTY_USAGE, addUsage, type ToolUseBlock, type Usage } from "../../llm/model-types.js";
import type { AgentResult, AgentStopReason } from "../agent-events.js";
import type { AgentLoopDeps } from "./loop-deps.js";

/**
 * One run of the loop as it goes: the counts and usage its result reports,
 * where the conversation stands (the prompt's turn, the newest entry, the
 * last failed call), the turn under way, and what prefetch put in front of
 * the model beside what the model then wrote and called.
 */
export class AgentRun {
  turns = 0;
  toolCalls = 0;
  usage: Usage = EMPTY_USAGE;
  /** The answer so far: the last response's text. */
  lastText = "";
  /** The last failed tool call's message, for the context hook (a fix learned for it is a Known Solution). */
  lastError: string | undefined;
  /** The newest entry of the conversation: what the next one recorded answers. */
  parentId = "";
  /** The turn the prompt was recorded at (checkpoints group a prompt's edits by it). */
  readonly promptTurn: number;
  /**
   * What prefetch put in front of the model during this run, and what the
   * model wrote and called: an injected item counts as used when anything
   * later in the run cites it (a model often reads and searches first, and
   * cites in its final answer).
   */
  private readonly augmentations: AugmentedQuery[] = [];
  private readonly texts: string[] = [];
  private readonly targets: string[] = [];
  /** The size of the last request sent, for the quality observation of its turn. */
  private sentTokens = 0;
  /** A turn that was under way when the run stopped still gets its observation. */
  private turnOpen = false;

  constructor(
    private readonly deps: Pick<AgentLoopDeps, "recorder" | "prefetcher" | "quality">,
    readonly prompt: string,
    readonly signal: AbortSignal,
  ) {
    this.promptTurn = deps.recorder.currentTurn + 1;
  }

  /** A prefetch for this run: what went in front of the model (possibly nothing, with the candidates it scored). */
  prefetched(augmented: AugmentedQuery): void {
    this.augmentations.push(augmented);
  }

  /** A request of this size is sent: its turn is under way. */
  sent(contextTokens: number): void {
    this.sentTokens = contextTokens;
    this.turnOpen = true;
  }

  /** The model answered (or a call answered for it): its text, the calls it made, what it used. */
  answered(text: string, calls: readonly ToolUseBlock[] = [], usage?: Usage): void {
    this.lastText = text;
    this.texts.push(text);
    for (const call of calls) this.targets.push(JSON.stringify(call.input));
    if (usage) this.usage = addUsage(this.usage, usage);
  }

  /** The turn under way is over: the controller gets its observation, at the size its request had. */
  closeTurn(turn: number, interrupted = false): void {
    if (!this.turnOpen) return;
    if (interrupted) this.deps.quality?.interrupted();
    this.deps.quality?.turnFinished(turn, this.sentTokens);
    this.turnOpen = false;
  }

  /** The run's result; prefetch learns which of its injections the run used. */
  result(stopReason: AgentStopReason, error?: AgentResult["error"]): AgentResult {
    for (const augmented of this.augmentations) this.deps.prefetcher?.metrics.recordOutcome(augmented, this.texts.join("\n"), this.targets);
    this.augmentations.length = 0;
    return {
      sessionId: this.deps.recorder.sessionId,
      response: this.lastText,
      stopReason,
      turns: this.turns,
      toolCalls: this.toolCalls,
      usage: this.usage,
      ...(error ? { error } : {}),
    };
  }
}
