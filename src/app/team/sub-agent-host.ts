import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { PermissionPolicy } from "../../agent/permissions/permission-policy.js";
import type { CommandSandbox } from "../../agent/sandbox/command-sandbox.js";
import type { RepositoryIntegrity } from "../../agent/sandbox/repository-integrity.js";
import type { CommandProcesses } from "../../agent/tools/command-processes.js";
import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { ToolContext, ToolOutput } from "../../agent/tools/tool.js";
import type { Approver } from "../../agent/tools/tool-registry.js";
import type { CustomAgent } from "../../roles/custom-agents.js";
import { resolveRole } from "../../roles/resolve-role.js";
import { EMPTY_USAGE, addUsage, type Usage } from "../../llm/model-types.js";
import { firstLine } from "../../agent/tools/roles/role-output.js";
import { newReferenceId } from "../../context/context-reference.js";
import type { ContextReference } from "../../store/content-types.js";
import { estimateTokens } from "../../tokens/estimate-tokens.js";
import { openAgentSession } from "../agent-session.js";
import type { ProjectServices } from "../project-services.js";
import type { AgentIdAllocator } from "./agent-ids.js";
import type { KnowledgeAgents } from "./knowledge-agents.js";

/** What every agent of a session tree shares with the one that started it (design notes, issue 14 §3). */
export interface SharedWithSubAgents {
  /** One policy: an "always" answer holds for the whole tree, and plan mode binds every agent. */
  policy: PermissionPolicy;
  approver?: Approver;
  sandbox: CommandSandbox;
  /** One integrity check: a `.git` one agent's command replaced stops every agent's git. */
  integrity: RepositoryIntegrity;
  /** Every agent's running commands, stopped together when Sylk is ended. */
  processes: CommandProcesses;
  codeSearcher: CodeSearcher;
  agentIds: AgentIdAllocator;
  extraDirectories: readonly string[];
  /** The tree's sub-agent usage, summed where the root reports it (`/cost`, `stats.subagents`). */
  usage: SubAgentUsage;
  /** The tree's long-lived knowledge agents, which `consult_*` reaches. */
  knowledge: KnowledgeAgents;
  /** The custom agents the root loaded (`.sylk/agents`, `$SYLK_HOME/agents`): `delegate` may start them. */
  customAgents: readonly CustomAgent[];
}

/** Sub-agent runs of a session tree and what they used. */
export class SubAgentUsage {
  runs = 0;
  total: Usage = EMPTY_USAGE;

  add(usage: Usage): void {
    this.runs++;
    this.total = addUsage(this.total, usage);
  }
}

export interface SubAgentHostDeps {
  services: ProjectServices;
  env: NodeJS.ProcessEnv;
  /** The agent whose tool calls start sub-agents. */
  parent: { sessionId: () => string; agentId: () => string; depth: number };
  shared: SharedWithSubAgents;
  settings: { maxTurns: number; models: Readonly<Record<string, string>> };
  /** The session's model (a sub-agent uses it unless `agents.models` names another). */
  model: () => string | undefined;
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
    const started = Date.now();
    const parentToolUseId = context.toolUseId ?? "";
    const role = resolveRole(request.agent, deps.shared.customAgents);
    const agentType = role.agentType;
    const agentId = deps.shared.agentIds.next(agentType);
    const parentAgentId = deps.parent.agentId();
    // The child stops when the caller is cancelled; the listener goes when the child ends, so a long-lived caller collects none.
    const controller = new AbortController();
    const cancel = () => controller.abort();
    if (context.signal.aborted) cancel();
    else context.signal.addEventListener("abort", cancel, { once: true });
    const model = deps.settings.models[request.agent] ?? role.model ?? deps.model();
    const child = openAgentSession({
      services: deps.services,
      env: deps.env,
      role,
      placement: "pipeline",
      parent: { sessionId: deps.parent.sessionId(), toolUseId: parentToolUseId, agentId, kind: "delegate", depth: deps.parent.depth + 1 },
      // Its questions to the user name it.
      shared: { ...deps.shared, ...(deps.shared.approver ? { approver: named(deps.shared.approver, agentId) } : {}) },
      maxTurns: deps.settings.maxTurns,
      ...(model ? { model } : {}),
    });
    const emit = (event: AgentEvent) => context.onEvent?.(event);
    try {
      const run = child.run(taskPrompt(request, parentAgentId), controller.signal);
      emit({ type: "subagent_start", agentId, agentType, parentAgentId, parentToolUseId, sessionId: child.sessionId, kind: "delegate", task: request.task });
      const result = await relayRun(run, { agentId, agentType, parentToolUseId }, emit);
      deps.shared.usage.add(result.usage);
      const answer = this.fitAnswer(result, request.maxTokens, agentId);
      emit({
        type: "subagent_end",
        agentId,
        agentType,
        parentToolUseId,
        stopReason: result.stopReason,
        turns: result.turns,
        toolCalls: result.toolCalls,
        usage: result.usage,
        durationMs: Date.now() - started,
        answerTokens: estimateTokens(answer.text),
        truncated: answer.truncated,
      });
      const changed = deps.services.handoffs.filesChanged(result.sessionId).map((file) => file.path);
      const footer = [
        `— ${agentId} (${agentType}) · ${result.stopReason === "end_turn" ? "done" : result.stopReason} · ${result.turns} model calls · ${result.toolCalls} tool calls`,
        `· ${(result.usage.inputTokens + result.usage.outputTokens).toLocaleString("en-US")} tokens`,
        changed.length > 0 ? `· files changed: ${changed.join(", ")}` : "· no files changed",
      ].join(" ");
      const failed = result.stopReason === "error" || result.stopReason === "interrupted";
      const body = answer.text.trim() === "" ? `(${agentId} gave no answer${result.error ? `: ${result.error.message}` : ""}.)` : answer.text;
      return {
        output: `${body}\n\n${footer}`,
        // The collapsed line shows the start of the answer; the transcript view (Ctrl+O) all of it.
        display: `${agentId}: ${result.stopReason === "end_turn" ? answerGist(body) : result.stopReason}`,
        ...(failed ? { isError: true } : {}),
        ...(changed.length > 0 ? { relatedFiles: changed } : {}),
      };
    } finally {
      context.signal.removeEventListener("abort", cancel);
      child.close();
    }
  }

  /** The answer within the budget; the whole of a clipped one stays retrievable through a reference to its entry. */
  private fitAnswer(result: AgentResult, maxTokens: number, agentId: string): { text: string; truncated: boolean } {
    const text = result.response;
    if (estimateTokens(text) <= maxTokens) return { text, truncated: false };
    const store = this.deps.services.contentStore;
    const answers = store.getByTurnRange(result.sessionId, 0, Number.MAX_SAFE_INTEGER).filter((entry) => entry.contentType === "agent_response");
    const last = answers.at(-1);
    const clipped = `${text.slice(0, maxTokens * 4)}\n[… answer clipped to ${maxTokens.toLocaleString("en-US")} tokens]`;
    if (!last) return { text: clipped, truncated: true };
    const reference: ContextReference = {
      id: newReferenceId(store),
      type: "conversation",
      sessionId: this.deps.parent.sessionId(),
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

/**
 * Runs a sub-agent to its end, passing each of its events up wrapped as a
 * `subagent_event` of the call that started it (and to `watch`, if given);
 * returns its result.
 */
export async function relayRun(
  run: AsyncGenerator<AgentEvent, AgentResult>,
  from: { agentId: string; agentType: string; parentToolUseId: string },
  emit: (event: AgentEvent) => void,
  watch?: (event: AgentEvent) => void,
): Promise<AgentResult> {
  for (let step = await run.next(); ; step = await run.next()) {
    if (step.done) return step.value;
    watch?.(step.value);
    emit({ type: "subagent_event", ...from, event: step.value });
  }
}

/** The answer's first line that says something, short enough for one screen line. */
export function answerGist(answer: string): string {
  return firstLine(answer, 100) || "(no answer)";
}

function named(approver: Approver, agentId: string): Approver {
  // The deepest agent names itself: an id already set by a sub-agent of this one stays.
  return (request) => approver({ agentId, ...request });
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
