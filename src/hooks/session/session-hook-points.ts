import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { StopHooks } from "../../agent/loop/loop-deps.js";
import type { ToolHooks } from "../../agent/tools/tool-hooks.js";
import type { EvictionNotice } from "../../context/evicted-items.js";
import { EMPTY_USAGE } from "../../llm/model-types.js";
import { SessionHooks, type SessionHooksDeps } from "../session-hooks.js";
import { toolHooksOf } from "./tool-hooks-of.js";

type Run = AsyncGenerator<AgentEvent, AgentResult>;

export interface SessionHookPointsDeps extends SessionHooksDeps {
  /** A sub-agent's session: its answer's end is `SubagentStop`; it has no session start or end, and no prompt of the user's. */
  subAgent?: { agentId: () => string; agentType: string };
  /** The session was opened to go on with an earlier one (`SessionStart`'s `source`). */
  resumed: boolean;
}

/** Why a session ends, as `SessionEnd` hooks see it (`reason`). */
export type SessionEndReason = "exit" | "clear" | "resume" | "other";

/**
 * Where a session's hooks run, in one place: `SessionStart` and
 * `UserPromptSubmit` before a prompt, `Stop` / `SubagentStop` for the loop,
 * `PreToolUse` / `PostToolUse` for the registry, `PreEvict` for the window,
 * `Handoff` after a handoff, `SessionEnd` when the session ends. Every hook
 * run becomes a `hook` event of the run under way (`reported`). Without
 * hooks each point costs nothing.
 */
export class SessionHookPoints {
  private readonly hooks: SessionHooks;
  private started = false;

  constructor(private readonly deps: SessionHookPointsDeps) {
    this.hooks = new SessionHooks(deps);
  }

  /** The registry's; undefined when no hook is configured for tool calls. */
  toolHooks(): ToolHooks | undefined {
    return this.hooks.has("PreToolUse") || this.hooks.has("PostToolUse") ? toolHooksOf(this.hooks) : undefined;
  }

  /** The loop's, asked when an answer would end the run; undefined when none is configured. */
  stopHooks(): StopHooks | undefined {
    const agent = this.deps.subAgent;
    const event = agent ? "SubagentStop" : "Stop";
    if (!this.hooks.has(event)) return undefined;
    return {
      stop: async ({ lastMessage, stopHookActive }, signal) => {
        const input = {
          stop_hook_active: stopHookActive,
          last_assistant_message: lastMessage,
          ...(agent ? { agent_id: agent.agentId(), agent_type: agent.agentType } : {}),
        };
        const outcome = await this.hooks.run(event, input, signal);
        return outcome.blocked !== undefined ? { blocked: outcome.blocked } : {};
      },
    };
  }

  /** The window's: told before an eviction is written. */
  readonly beforeEvict = async (notice: EvictionNotice): Promise<void> => {
    if (!this.hooks.has("PreEvict")) return;
    await this.hooks.run("PreEvict", { trigger: notice.trigger, turn_range: notice.turnRange, tokens: notice.tokens, items: notice.items });
  };

  /**
   * A prompt's run, after the session's start (at its first prompt: what a
   * `SessionStart` hook adds goes with it) and the `UserPromptSubmit` hooks.
   * What they add for the model is given to `start`; a prompt a hook blocks
   * is neither sent nor recorded, and the run ends `blocked` with the
   * hook's reason shown.
   */
  async *aroundPrompt(prompt: string, signal: AbortSignal, start: (hookContext: string | undefined) => Run): Run {
    if (this.deps.subAgent) return yield* start(undefined);
    const contexts: string[] = [];
    if (!this.started) {
      this.started = true;
      const opened = await this.hooks.run("SessionStart", { source: this.deps.resumed ? "resume" : "startup" }, signal);
      if (opened.additionalContext) contexts.push(opened.additionalContext);
    }
    const submitted = await this.hooks.run("UserPromptSubmit", { prompt }, signal);
    yield* this.takeReports();
    if (submitted.blocked !== undefined) {
      const result: AgentResult = {
        sessionId: this.deps.sessionId(),
        response: "",
        stopReason: "blocked",
        turns: 0,
        toolCalls: 0,
        usage: EMPTY_USAGE,
        error: { kind: "hook", message: submitted.blocked },
      };
      yield { type: "done", result };
      return result;
    }
    if (submitted.additionalContext) contexts.push(submitted.additionalContext);
    return yield* start(contexts.length > 0 ? contexts.join("\n\n") : undefined);
  }

  /**
   * The run with every hook run shown as it happened: the reports of hooks
   * that ran since the last event come before the next one (a PreToolUse
   * hook's before its call's result, a PreEvict hook's before the
   * eviction). A handoff runs the `Handoff` hooks before the run goes on.
   */
  async *reported(run: Run): Run {
    for (;;) {
      const next = await run.next();
      yield* this.takeReports();
      if (next.done) return next.value;
      yield next.value;
      if (next.value.type === "handoff" && this.hooks.has("Handoff")) {
        const { fromAgent, toAgent, reason, handoffIndex, contextTokensBefore, contextTokensAfter } = next.value;
        await this.hooks.run("Handoff", {
          from_agent: fromAgent,
          to_agent: toAgent,
          reason,
          handoff_index: handoffIndex,
          context_tokens_before: contextTokensBefore,
          context_tokens_after: contextTokensAfter,
        });
      }
    }
  }

  /** `SessionEnd`, for a session that had a prompt; what the hooks said, to show. */
  async end(reason: SessionEndReason): Promise<AgentEvent[]> {
    if (this.deps.subAgent || !this.started || !this.hooks.has("SessionEnd")) return [];
    await this.hooks.run("SessionEnd", { reason });
    return this.takeReports();
  }

  private takeReports(): AgentEvent[] {
    return this.hooks.takeReports().map((report) => ({ type: "hook", ...report }));
  }
}

/** A prompt with what the hooks add for the model after it. */
export function withHookContext(prompt: string, context: string | undefined): string {
  return context ? `${prompt}\n\n<hook-context>\n${context}\n</hook-context>` : prompt;
}

/** What a session's hook points are made from: the configured hooks, where they run, and whose session it is. */
export interface SessionHookSources {
  services: { loadedConfig: { hooks?: SessionHooksDeps["hooks"] }; paths: { root: string } };
  env: NodeJS.ProcessEnv;
  tree: { readonly policy: { readonly mode: string }; readonly processes: NonNullable<SessionHooksDeps["processes"]> };
  conversation: { readonly id: string; readonly agentId: string };
  /** Set for a sub-agent's session: its agent type. */
  subAgentType: string | undefined;
  resumed: boolean;
}

/** The hook points of one session (none configured: each costs nothing). */
export function sessionHookPointsFor(sources: SessionHookSources): SessionHookPoints {
  const { tree, conversation, subAgentType } = sources;
  return new SessionHookPoints({
    hooks: sources.services.loadedConfig.hooks ?? [],
    root: sources.services.paths.root,
    env: sources.env,
    sessionId: () => conversation.id,
    permissionMode: () => tree.policy.mode,
    processes: tree.processes,
    resumed: sources.resumed,
    ...(subAgentType !== undefined ? { subAgent: { agentId: () => conversation.agentId, agentType: subAgentType } } : {}),
  });
}
