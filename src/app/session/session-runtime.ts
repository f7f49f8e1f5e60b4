import { randomUUID } from "node:crypto";
import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import { runAgent } from "../../agent/agent-loop.js";
import { answerFromIndex } from "../../agent/offline-answer.js";
import type { SessionRecorder } from "../../agent/session-recorder.js";
import { streamToolOutput } from "../../agent/tool-output-stream.js";
import type { ToolContext } from "../../agent/tools/tool.js";
import type { ToolRegistry } from "../../agent/tools/tool-registry.js";
import type { SylkConfig } from "../../config/schema.js";
import { prefetchIsOn } from "../../context/prefetch/prefetch-config.js";
import { EMPTY_USAGE, type ModelProvider } from "../../llm/model-types.js";
import type { TokenCounter } from "../../llm/token-counter.js";
import type { RoleHook } from "../../roles/role-registry.js";
import { maskSecrets } from "../../security/secrets.js";
import { errorMessage } from "../../errors.js";
import { workflowBlock, type WorkflowSource } from "../../team/workflow-block.js";
import type { FileCheckpoints } from "../file-checkpoints.js";
import type { SessionHandoff } from "../../handoff/session/session-handoff.js";
import { type SessionHookPoints, withHookContext } from "../../hooks/session/session-hook-points.js";
import type { ObservationBuffer } from "../../knowledge/session/observation-buffer.js";
import type { SessionKnowledge } from "../../knowledge/session/session-knowledge.js";
import type { SessionRetrievalLearning } from "../../learning/session/session-retrieval-learning.js";
import type { Mentions } from "../mentions.js";
import type { ProjectServices } from "../project-services.js";
import type { GuideRouter } from "../../team/session/guide-router.js";
import { runPipeline } from "../../team/session/pipeline-runner.js";
import type { OpenChildSession } from "../../team/session/child-session.js";
import { withMcpNotices } from "../../mcp/session/mcp-run.js";
import type { Conversation } from "./conversation.js";
import type { CustomCommandRuns } from "./custom-command-runs.js";
import {
  maskedNotice,
  withAttachments,
  withNotices,
  withReports,
  withRunRules,
  withSubAgentTotals,
  whileRecorded,
} from "./run-wrappers.js";
import type { SessionTree } from "./session-tree.js";
import type { SessionWindow } from "./session-window.js";

type Run = AsyncGenerator<AgentEvent, AgentResult>;
type Notice = { kind: string; message: string };

/** The session's model, or why there is none (then answers come from the index). */
export type ModelChoice = { provider: ModelProvider; offlineReason?: undefined } | { provider: undefined; offlineReason: string };

export interface SessionRuntimeDeps {
  services: ProjectServices;
  config: SylkConfig;
  model: ModelChoice;
  /** The role's hook: what goes after each prompt, and how much prefetch it gets. */
  hook: RoleHook;
  /** A sub-agent's runs teach self-tuning retrieval nothing: it has no user to judge them. */
  isSubAgent: boolean;
  maxTurns: number;
  /** The orchestrator's `[WORKFLOW]` source; by default the session's task list. */
  workflow: (() => WorkflowSource) | undefined;
  conversation: Conversation;
  tree: SessionTree;
  tools: ToolRegistry;
  toolContext: Omit<ToolContext, "signal">;
  systemPrompt: string;
  /** What the user should hear once, with the first prompt (memory files left out of the system prompt). */
  firstNotices: Array<{ kind: string; message: string }>;
  window: SessionWindow;
  tokenCounter: TokenCounter;
  handoff: SessionHandoff;
  learning: SessionRetrievalLearning;
  knowledge: SessionKnowledge;
  observations: { buffer: ObservationBuffer | undefined; reports: string[] };
  router: GuideRouter | undefined;
  mentions: Mentions;
  checkpoints: FileCheckpoints;
  /** Opens a pipeline's stage agents in this tree. */
  openChild: OpenChildSession;
  /** Whether someone can answer questions (a script cannot). */
  canAsk: boolean;
  /** The user's hooks: around each prompt, in the loop, and shown as the run's events. */
  hooks: SessionHookPoints;
  /** A root session's custom slash commands (a sub-agent's prompt is never one). */
  commands: CustomCommandRuns | undefined;
  /** A provider for another model (a custom command's `model`), or undefined when it cannot be made. */
  providerNamed: (model: string) => ModelProvider | undefined;
}

/** What a custom command changes for its prompt: the model, and what the user is told. */
interface CustomRun {
  provider?: ModelProvider;
  notices?: Notice[];
}

/** What one session runs: prompts through the agent loop, the user's own commands, pipelines. */
export class SessionRuntime {
  constructor(private readonly deps: SessionRuntimeDeps) {}

  run(entered: string, signal: AbortSignal): Run {
    const command = this.deps.commands?.prepare(entered);
    if (!command) return this.hookedRun(entered, signal);
    const provider = command.model ? this.deps.providerNamed(command.model) : undefined;
    const run = this.hookedRun(command.prompt, signal, { notices: command.notices, ...(provider ? { provider } : {}) });
    return command.allowedTools.length > 0 ? withRunRules(() => this.deps.tree.policy.grantForRun(command.allowedTools), run) : run;
  }

  /**
   * One prompt as entered (or as a custom command expanded it: that is what
   * the prompt's hooks see, as the model will), through the prompt's hooks.
   */
  private hookedRun(entered: string, signal: AbortSignal, custom: CustomRun = {}): Run {
    // A secret pasted into a prompt is neither sent nor stored (nor given to a hook): the model and the history get it masked.
    const screened = maskSecrets(entered);
    const { hooks } = this.deps;
    return hooks.reported(
      hooks.aroundPrompt(screened.text, signal, (hookContext) => this.promptRun(screened, hookContext, signal, custom)),
    );
  }

  /** A prompt's run, once the hooks let it through, with what they add for the model after it. */
  private promptRun(
    screened: ReturnType<typeof maskSecrets>,
    hookContext: string | undefined,
    signal: AbortSignal,
    custom: CustomRun,
  ): Run {
    const { deps } = this;
    const typed = screened.text;
    const attached = deps.mentions.attach(typed);
    const { attachments, refused } = attached;
    const prompt = withHookContext(attached.prompt, hookContext);
    const active = deps.conversation.record(typed);
    if (!deps.model.provider)
      return answerFromIndex({ searcher: deps.tree.codeSearcher, recorder: active, reason: deps.model.offlineReason }, typed);
    const run = this.modelRun(custom.provider ?? deps.model.provider, active, this.withHookBlock(prompt), signal);
    const followed = withSubAgentTotals(deps.tree.usage, deps.isSubAgent ? run : deps.learning.track(prompt, run));
    const { buffer, reports } = deps.observations;
    // Observed as the run goes, in the background: a long run's messages are noted before it ends.
    const compactionFailed = (error: unknown) => reports.push(`Observational memory could not compact the window: ${errorMessage(error)}`);
    const observed = buffer
      ? whileRecorded(withReports(reports, deps.window.holding(followed, compactionFailed)), () => buffer.signal())
      : followed;
    const secrets = screened.findings.length > 0 ? [{ kind: "secrets", message: maskedNotice(screened.findings) }] : [];
    const notices = [
      ...secrets,
      ...deps.firstNotices.splice(0),
      ...(custom.notices ?? []),
      ...refused.map(({ message }) => ({ kind: "mention", message })),
    ];
    const told = notices.length > 0 ? withNotices(notices, observed) : observed;
    // The root's run tells of the MCP servers; a sub-agent's events reach the user through it.
    const withServers = deps.isSubAgent ? told : withMcpNotices(deps.tree.mcp, told);
    return attachments.length > 0 ? withAttachments(attachments, withServers) : withServers;
  }

  /** `!command`: run as run_command runs (its tool hooks too), its output put in the conversation for the model's next prompt. */
  runCommand(command: string, signal: AbortSignal): Run {
    return this.deps.hooks.reported(this.commandRun(command, signal));
  }

  private async *commandRun(command: string, signal: AbortSignal): Run {
    const { tools, toolContext } = this.deps;
    const active = this.deps.conversation.record(`!${command}`);
    const call = { id: `user_command_${randomUUID()}`, name: "run_command", input: { command } };
    yield { type: "tool_use", ...call };
    const result = yield* streamToolOutput(call.id, (onOutput) =>
      tools.run(call, { ...toolContext, signal, onOutput }, { userApproved: true }),
    );
    yield { type: "tool_result", id: call.id, name: call.name, ...result };
    await active.recordNote(`The user ran \`${command}\` themselves (${result.display ?? "done"}); what it printed:\n${result.output}`, {
      typed: `!${command}`,
      ...(result.display ? { outcome: result.display } : {}),
    });
    const done: AgentResult = {
      sessionId: active.session.id,
      response: "",
      stopReason: "end_turn",
      turns: 0,
      toolCalls: 1,
      usage: EMPTY_USAGE,
    };
    yield { type: "done", result: done };
    return done;
  }

  /** The task through the team's stages, each agent in a child session of this one; the summary is this conversation's answer. */
  runPipeline(entered: string, signal: AbortSignal): Run {
    const typed = maskSecrets(entered).text;
    const { hooks } = this.deps;
    return hooks.reported(
      hooks.aroundPrompt(typed, signal, (hookContext) => this.pipelineRun(withHookContext(typed, hookContext), signal)),
    );
  }

  /** A pipeline's run, once the prompt's hooks let its task through. */
  private pipelineRun(task: string, signal: AbortSignal): Run {
    const { deps } = this;
    const provider = deps.model.provider;
    if (!provider)
      return answerFromIndex(
        { searcher: deps.tree.codeSearcher, recorder: deps.conversation.record(task), reason: deps.model.offlineReason },
        task,
      );
    const { config, conversation } = deps;
    const root = {
      ensureSession: (title: string) => conversation.record(title).session.id,
      recordTurn: async (prompt: string, answer: string) => {
        const active = conversation.record(prompt);
        const turn = active.nextTurn();
        const promptId = await active.recordPrompt(`[pipeline] ${prompt}`, turn);
        await active.recordResponse(
          turn,
          { content: [{ type: "text", text: answer }], stopReason: "end_turn", usage: EMPTY_USAGE, model: provider.model },
          promptId,
        );
      },
    };
    return runPipeline(
      {
        services: deps.services,
        openSession: deps.openChild,
        agentIds: deps.tree.agentIds,
        root,
        settings: { maxTurns: config.agents.maxTurns, models: config.agents.models, maxFixRounds: config.pipeline.maxFixRounds },
        permissionMode: () => deps.tree.policy.mode,
        canAsk: deps.canAsk,
        model: provider.model,
      },
      task,
      signal,
    );
  }

  /** One prompt through the agent loop, with the window, prefetch and the handoff controller. */
  private modelRun(provider: ModelProvider, active: SessionRecorder, prompt: string, signal: AbortSignal): Run {
    const { deps } = this;
    const { config, tools, window, handoff, learning } = deps;
    const windowTokens = config.context.windowTokens ?? provider.contextWindow;
    // The window always keeps room for the answer: at most a quarter of it.
    const maxTokens = Math.min(config.model.maxTokens, Math.floor(windowTokens / 4));
    // The handoff controller: it answers each model call with a plan, which the loop applies.
    const quality = handoff.controllerFor(active.session.id, provider.model, windowTokens, deps.tokenCounter);
    const contextManager = window.managerFor(windowTokens);
    const prefetcher = window.prefetcherFor(windowTokens);
    // The orchestrator gets its workflow instead of code.
    const prefetchRuns = prefetchIsOn(config.context) && deps.hook !== "workflow_context";
    const stopHooks = deps.hooks.stopHooks();
    return runAgent(
      {
        provider,
        tools,
        toolContext: deps.toolContext,
        recorder: active,
        systemPrompt: deps.systemPrompt,
        // The context-aware part: the prompt's knowledge after the cached prompt, which stays cacheable (knowledge.enabled).
        systemContextFor: (query, lastError) =>
          deps.knowledge.systemContextFor(
            query,
            tools.specs().map(({ name, description }) => ({ name, description })),
            lastError,
          ),
        maxTurns: deps.maxTurns,
        maxParallel: config.agents.maxParallel,
        maxTokens,
        tokenCounter: deps.tokenCounter,
        contextManager,
        ...(prefetchRuns ? { prefetcher } : {}),
        onFileWrite: ({ promptTurn, toolUseId }, write) => {
          deps.checkpoints.record(promptTurn, toolUseId, write);
          handoff.recordWrite(active.session.id, write);
          learning.fileWritten(write.shown);
        },
        quality,
        ...(stopHooks ? { stopHooks } : {}),
      },
      prompt,
      signal,
    );
  }

  /**
   * What a role's hook puts after the prompt: the guide's routing block (the
   * agent it routes to gets the prompt as written), the orchestrator's
   * workflow block.
   */
  private withHookBlock(prompt: string): string {
    const { router, hook, workflow, handoff } = this.deps;
    if (router) return `${prompt}\n\n${router.beforePrompt(prompt)}`;
    if (hook === "workflow_context") return `${prompt}\n\n${workflowBlock(workflow?.() ?? { kind: "tasks", tasks: handoff.tasks() })}`;
    return prompt;
  }
}
