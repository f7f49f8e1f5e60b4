import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import { firstLine } from "../../agent/tools/role-tools/role-output.js";
import type { ToolContext } from "../../agent/tools/tool.js";
import { addUsage, EMPTY_USAGE, type Usage } from "../../llm/model-types.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import type { ChildSession } from "./child-session.js";

/** Sub-agent runs of a session tree and what they used. */
export class SubAgentUsage {
  runs = 0;
  total: Usage = EMPTY_USAGE;

  add(usage: Usage): void {
    this.runs++;
    this.total = addUsage(this.total, usage);
  }
}

/** A child agent at work for its caller. */
export interface ChildAgent {
  agentId: string;
  agentType: string;
  session: Pick<ChildSession, "sessionId" | "run">;
}

/**
 * One piece of work a child agent does for its caller (a delegation, a
 * consultation, a routed prompt, a pipeline stage): one or more prompts,
 * run on a signal that follows the caller's, each event passed up as a
 * `subagent_event` of the call that started it, and what they used summed.
 */
export class ChildRun {
  readonly started = Date.now();
  private readonly signal: AbortSignal;
  private readonly results: AgentResult[] = [];

  constructor(
    readonly child: ChildAgent,
    readonly parentToolUseId: string,
    caller: AbortSignal,
  ) {
    // Its own signal, following the caller's: the listeners a run hangs on it go with it, not onto a long-lived caller's signal.
    this.signal = AbortSignal.any([caller]);
  }

  /**
   * One prompt to the child, set up at once (its record, its window); its
   * events come out wrapped, `watch` sees each as the child made it.
   */
  prompt(text: string, watch?: (event: AgentEvent) => void): AsyncGenerator<AgentEvent, AgentResult> {
    return this.relay(this.child.session.run(text, this.signal), watch);
  }

  private async *relay(
    run: AsyncGenerator<AgentEvent, AgentResult>,
    watch?: (event: AgentEvent) => void,
  ): AsyncGenerator<AgentEvent, AgentResult> {
    const { agentId, agentType } = this.child;
    for (let step = await run.next(); ; step = await run.next()) {
      if (step.done) {
        this.results.push(step.value);
        return step.value;
      }
      watch?.(step.value);
      yield { type: "subagent_event", agentId, agentType, parentToolUseId: this.parentToolUseId, event: step.value };
    }
  }

  get usage(): Usage {
    return this.results.reduce((sum, result) => addUsage(sum, result.usage), EMPTY_USAGE);
  }

  get turns(): number {
    return this.results.reduce((sum, result) => sum + result.turns, 0);
  }

  get toolCalls(): number {
    return this.results.reduce((sum, result) => sum + result.toolCalls, 0);
  }
}

/** How a child's work for a tool call ended, as its caller received it. */
export interface ChildAnswer {
  /** The answer the caller got. */
  text: string;
  /** Its tokens, when the caller got more than the text (a consultation's sources); by default the text's. */
  tokens?: number;
  /** Clipped to the call's budget. */
  truncated?: boolean;
}

/**
 * A child's work for a tool call of its caller (`delegate`, `consult_*`,
 * `route_to_agent`): announced with `subagent_start` once its first run is
 * set up, its events relayed
 * through the call, counted once in the tree's sub-agent usage and closed
 * with `subagent_end`.
 */
export class ChildToolCall {
  private readonly run: ChildRun;
  private readonly emit: (event: AgentEvent) => void;
  private announce: AgentEvent | undefined;
  private last: AgentResult | undefined;

  constructor(
    child: ChildAgent,
    context: ToolContext,
    announce: { parentAgentId: string; kind: string; task: string },
    private readonly treeUsage: SubAgentUsage,
  ) {
    const parentToolUseId = context.toolUseId ?? "";
    this.run = new ChildRun(child, parentToolUseId, context.signal);
    this.emit = (event) => context.onEvent?.(event);
    const { agentId, agentType, session } = child;
    this.announce = { type: "subagent_start", agentId, agentType, parentToolUseId, sessionId: session.sessionId, ...announce };
  }

  /** One prompt to the child, its events passed up through the call as they happen; the first is announced once it is set up. */
  async prompt(text: string, watch?: (event: AgentEvent) => void): Promise<AgentResult> {
    const run = this.run.prompt(text, watch);
    if (this.announce) this.emit(this.announce);
    this.announce = undefined;
    for (let step = await run.next(); ; step = await run.next()) {
      if (step.done) {
        this.last = step.value;
        return step.value;
      }
      this.emit(step.value);
    }
  }

  /** When the call started the child's work. */
  get started(): number {
    return this.run.started;
  }

  /** The child is done: what it used joins the tree's, and the call's stream hears how it ended. */
  finish(answer: ChildAnswer): void {
    const usage = this.run.usage;
    this.treeUsage.add(usage);
    const { agentId, agentType } = this.run.child;
    this.emit({
      type: "subagent_end",
      agentId,
      agentType,
      parentToolUseId: this.run.parentToolUseId,
      stopReason: this.last?.stopReason ?? "interrupted",
      turns: this.run.turns,
      toolCalls: this.run.toolCalls,
      usage,
      durationMs: Date.now() - this.run.started,
      answerTokens: answer.tokens ?? estimateTokens(answer.text),
      truncated: answer.truncated ?? false,
    });
  }
}

/** The answer's first line that says something, short enough for one screen line. */
export function answerGist(answer: string): string {
  return firstLine(answer, 100) || "(no answer)";
}
