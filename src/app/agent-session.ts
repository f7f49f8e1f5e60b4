import { randomUUID } from "node:crypto";
import { platform } from "node:os";
import type { AgentResult } from "../agent/agent-events.js";
import { runAgent } from "../agent/agent-loop.js";
import { streamToolOutput } from "../agent/tool-output-stream.js";
import { EMPTY_USAGE } from "../llm/model-types.js";
import { answerFromIndex } from "../agent/offline-answer.js";
import { PermissionPolicy } from "../agent/permissions/permission-policy.js";
import { SessionRecorder } from "../agent/session-recorder.js";
import { buildSystemPrompt } from "../agent/system-prompt.js";
import { createBuiltinTools } from "../agent/tools/builtin-tools.js";
import { ToolRegistry, type ToolRunResult } from "../agent/tools/tool-registry.js";
import type { ToolDefinition } from "../agent/tools/tool.js";
import { sandboxFor } from "../agent/sandbox/open-command-sandbox.js";
import { RepositoryIntegrity } from "../agent/sandbox/repository-integrity.js";
import { CommandProcesses } from "../agent/tools/command-processes.js";
import { checkpointFingerprints } from "./checkpoint-fingerprint.js";
import { FileCheckpoints, type RestoreResult } from "./file-checkpoints.js";
import { Mentions } from "./mentions.js";
import { ContextRetriever } from "../context/context-retriever.js";
import { createContextManager } from "../context/create-context-manager.js";
import type { VirtualContextManager } from "../context/virtual-context-manager.js";
import { createPrefetcher, type Prefetcher } from "../context/prefetch/create-prefetcher.js";
import { prefetchIsOn } from "../context/prefetch/prefetch-config.js";
import { createContextTools } from "../agent/tools/context-tools.js";
import { FOCUSED_PREFETCH_TOKENS, hookOf, toolsForRole } from "../roles/role-registry.js";
import { resolveRoleIn } from "../roles/resolve-role.js";
import { maskSecrets } from "../security/secrets.js";
import { createProvider } from "../llm/create-provider.js";
import { LoggingProvider } from "../llm/logging-provider.js";
import { CalibratedTokenCounter } from "../llm/token-counter.js";
import { SessionHandoff } from "./handoff/session-handoff.js";
import { SessionLearning } from "./learning/session-learning.js";
import { UserProfiles } from "./user-profiles.js";
import { resumedSession } from "./resumed-session.js";
import { AgentIdAllocator } from "./team/agent-ids.js";
import { type SharedWithSubAgents, SubAgentHost, SubAgentUsage } from "./team/sub-agent-host.js";
import { type Consulter, KnowledgeAgents } from "./team/knowledge-agents.js";
import { runPipeline } from "./team/pipeline-runner.js";
import { SessionKnowledge } from "./knowledge/session-knowledge.js";
import { ObservationBuffer } from "./knowledge/observation-buffer.js";
import { observerFor } from "./knowledge/observer-provider.js";
import { workflowBlock } from "../team/workflow-block.js";
import { loadCustomAgents } from "../roles/custom-agents.js";
import { GuideRouter } from "./team/guide-router.js";
import { createRouteToAgentTool } from "../agent/tools/route-to-agent.js";
import { createGetRoutingHistoryTool } from "../agent/tools/roles/get-routing-history.js";
import { RoutingRepository } from "../store/routing-repository.js";
import { afterRun, maskedNotice, withAttachments, withNotices, withReports, withSubAgentTotals } from "./run-wrappers.js";
import { CONSULTABLE_AGENTS, createConsultTool } from "../agent/tools/consult.js";
import { createDelegateTool, delegableAgents } from "../agent/tools/delegate.js";
import { recordTestRuns } from "../agent/tools/roles/record-test-runs.js";
import { createRoleTools } from "./team/role-tools.js";
import { categoryOf, degradationActionOf } from "../handoff/agent-types.js";

import type { AgentSession, AgentSessionOptions } from "./agent-session-types.js";

export type { AgentSession, AgentSessionOptions };

const NOTHING_RESTORED: RestoreResult = { promptTurns: [], restored: [], conflicts: [], refused: [] };


/**
 * Wires one conversation: the model (or, with none configured, the index),
 * the tools behind the permission policy, the recorder and the system
 * prompt. Shared by `sylk ask` and the TUI.
 */
export function openAgentSession(options: AgentSessionOptions): AgentSession {
  const { services, env } = options;
  const codeSearcher = options.shared?.codeSearcher ?? options.codeSearcher ?? services.codeSearcher;
  const { config } = services.loadedConfig;
  const role = options.role ?? resolveRoleIn(options.agentType ?? config.agent.type, { sylkHome: services.paths.sylkHome, root: services.paths.root });
  const model = options.model ?? role.model;
  const choice = createProvider(model ? { ...config.model, name: model } : config.model, env);
  const provider = choice.provider && env.SYLK_MODEL_LOG ? new LoggingProvider(choice.provider, env.SYLK_MODEL_LOG) : choice.provider;
  // Started while the first request is under way, so the first grep does not wait for the thread to load.
  if (provider) services.grepThread.warmUp();
  /** The built-in type whose handoff machinery the agent uses; its records carry `role.agentType`. */
  const agentType = role.handoffType;
  const parent = options.parent;
  const recorderDeps = {
    sessions: services.sessions,
    contentStore: services.contentStore,
    identity: { agentId: parent?.agentId ?? `${role.agentType}-1`, agentType: role.agentType },
  };
  // A knowledge agent goes on with its own session; only root sessions are found by prefix or as the latest.
  const resumed = options.resume ? resumedSession(services, options.resume, parent !== undefined) : undefined;
  let recorder: SessionRecorder | undefined = resumed ? SessionRecorder.resume(recorderDeps, resumed) : undefined;
  const recorderFor = (prompt: string) => {
    recorder ??= SessionRecorder.start(recorderDeps, {
      title: prompt,
      provider: provider?.name ?? "none",
      model: provider?.model ?? "index-only",
      ...(parent
        ? { parent: { parentSessionId: parent.sessionId, parentToolUseId: parent.toolUseId, agentId: parent.agentId, agentType: role.agentType, kind: parent.kind } }
        : {}),
    });
    return recorder;
  };

  const mentions = new Mentions(services.paths.root, services.files);
  // Sylk's home is no tool's to read or write, even where the project (or an allowed directory) holds it.
  const toolContext = { root: services.paths.root, extraDirectories: options.shared?.extraDirectories ?? options.extraDirectories ?? [], hiddenDirectories: [services.paths.sylkHome] };
  const checkpoints = new FileCheckpoints(services.checkpoints, () => recorder?.session.id ?? "", checkpointFingerprints(services.paths.sylkHome));
  /** The model learns of edits taken back with its next prompt; the files are not what it last saw. */
  const restored = async (result: RestoreResult, how: string) => {
    if (result.restored.length > 0) await recorder?.recordNote(`The user ${how}: ${result.restored.join(", ")} are back as they were before.`);
    return result;
  };
  const policy = options.shared?.policy ?? new PermissionPolicy(options.permissionMode ?? config.permissions.mode, config.permissions);
  const sandbox = options.shared?.sandbox ?? options.sandbox ?? sandboxFor(config, env, services.paths.root);
  const approver = options.shared ? options.shared.approver : options.approver;
  const shared: SharedWithSubAgents =
    options.shared ??
    (() => {
      const tree: SharedWithSubAgents = {
        policy,
        ...(approver ? { approver } : {}),
        sandbox,
        integrity: new RepositoryIntegrity(env),
        processes: new CommandProcesses(),
        codeSearcher,
        agentIds: new AgentIdAllocator(services.sessions, () => recorder?.session.id),
        extraDirectories: options.extraDirectories ?? [],
        usage: new SubAgentUsage(),
        // Errors in agent files are reported where the session starts (sylk ask, the TUI); the ones that load can be delegated to.
        customAgents: loadCustomAgents({ sylkHome: services.paths.sylkHome, root: services.paths.root }).agents,
        knowledge: new KnowledgeAgents({
          services,
          env,
          rootSessionId: () => recorder?.session.id ?? "",
          shared: () => tree,
          settings: { maxTurns: config.agents.maxTurns, models: config.agents.models },
          model: () => provider?.model,
        }),
      };
      return tree;
    })();
  const tokenCounter = new CalibratedTokenCounter();
  let contextManager: VirtualContextManager | undefined;
  let prefetcher: Prefetcher | undefined;
  /** Tokens a retrieval may bring back: what the window can still take. */
  const retrievalBudget = () => contextManager?.retrievalBudget() ?? 10_000;
  const contextTools = createContextTools({
    retriever: new ContextRetriever(services.contentStore),
    contentStore: services.contentStore,
    sessionId: () => recorder?.session.id ?? "",
    availableTokens: () => retrievalBudget(),
    sessionTree: (id) => [id, ...services.sessions.descendants(id).map((child) => child.id)],
    // Retrieved content is promoted to the hot tier.
    onRetrieved: (entries) => {
      for (const entry of entries) {
        prefetcher?.tracker.recordAccess(`entry:${entry.id}`, recorder?.currentTurn ?? 0, "tool_retrieved");
        prefetcher?.hotCache.put(`entry:${entry.id}`, `turn ${entry.turnNumber} · ${entry.contentType}`, entry.content);
      }
    },
  });
  const userProfiles = new UserProfiles(services.paths.sylkHome);
  const handoff = new SessionHandoff(services, config, () => recorder?.session.id, userProfiles, {
    type: agentType,
    allocateAgentId: () => shared.agentIds.next(agentType),
    ...(parent ? { firstAgentId: parent.agentId } : {}),
    recording: () => (recorder ? { ...recorder.agent, turn: recorder.currentTurn } : undefined),
  });
  const learning = new SessionLearning(services, config, () => userProfiles.get(), options.random);
  const depth = parent?.depth ?? 0;
  const consulter: Consulter = {
    agentId: () => recorder?.agent.agentId ?? recorderDeps.identity.agentId,
    agentType: role.agentType,
    sessionId: () => recorder?.session.id ?? "",
    retrievalBudget: () => retrievalBudget(),
  };
  const subAgents = new SubAgentHost({
    services,
    env,
    parent: { sessionId: () => recorder?.session.id ?? "", agentId: () => recorder?.agent.agentId ?? recorderDeps.identity.agentId, depth },
    shared,
    settings: { maxTurns: config.agents.maxTurns, models: config.agents.models },
    model: () => provider?.model,
  });
  // The guide routes each prompt to an agent (design notes, issue 14 §5); other roles have no router.
  let routingPrompt = "";
  const router =
    role.agentType === "guide"
      ? new GuideRouter({
          services,
          env,
          shared,
          sessionId: () => recorder?.session.id ?? "",
          guideAgentId: () => recorder?.agent.agentId ?? recorderDeps.identity.agentId,
          currentPrompt: () => routingPrompt,
          currentTurn: () => recorder?.currentTurn ?? 0,
          agents: delegableAgents().map((agent) => agent.name),
          settings: { maxTurns: config.agents.maxTurns, models: config.agents.models },
          model: () => provider?.model,
          random: options.random ?? Math.random,
        })
      : undefined;
  /**
   * What a role's hook puts after the prompt: the guide's routing block (the
   * agent it routes to gets the prompt as written), the orchestrator's
   * workflow block.
   */
  const withHookBlock = (prompt: string): string => {
    if (router) return `${(routingPrompt = prompt)}\n\n${router.beforePrompt(prompt)}`;
    if (hook === "workflow_context") return `${prompt}\n\n${workflowBlock(options.workflow?.() ?? { kind: "tasks", tasks: handoff.tasks() })}`;
    return prompt;
  };
  const knowledge = new SessionKnowledge(services, config, () => recorder?.session.id ?? "");
  // Seed 004: notes of a long conversation, written in the background after each turn (observationalMemory.enabled).
  const memoryReports: string[] = [];
  const observations = config.observationalMemory.enabled
    ? new ObservationBuffer({
        store: services.contentStore,
        sessionId: () => recorder?.session.id ?? "",
        rows: () => recorder?.rows() ?? [],
        observer: observerFor(config, env, provider),
        settings: config.observationalMemory,
        report: (message) => memoryReports.push(message),
        compact: async (through, summary) =>
          contextManager && recorder ? contextManager.compactObserved(recorder, through, config.observationalMemory.maxMessageTokenBudget, summary) : undefined,
      })
    : undefined;
  const available: ToolDefinition[] = [
    ...handoff.trackCommands(
      // Every check command's run (tests, build, typecheck, lint) is also a test_result entry: search_test_history reads them.
      knowledge.watch(recordTestRuns(
        createBuiltinTools({
          codeSearcher,
          grepThread: services.grepThread,
          sandbox,
          networkFor: async (command) => config.sandbox.network || (await policy.allowsNetwork(command)),
          integrity: shared.integrity,
          processes: shared.processes,
        }),
        { record: async (entry) => recorder?.recordDerived(entry) },
      )),
      shared.integrity,
    ),
    // Skills run their steps through this session's own registry (built just below).
    ...knowledge.tools({ run: (call, context): Promise<ToolRunResult> => tools.run(call, context), names: (): string[] => tools.names() }),
    ...contextTools,
    handoff.todoTool(),
    ...createRoleTools(services, { sessionId: () => recorder?.session.id ?? "", availableTokens: retrievalBudget, customAgents: shared.customAgents, gitGate: shared.integrity }),
    ...(options.extraTools ?? []),
    ...(router
      ? [
          createRouteToAgentTool({ agents: delegableAgents(), route: (request, context) => router.route(request, context) }),
          createGetRoutingHistoryTool({ history: (query) => new RoutingRepository(services.db).history(query), availableTokens: retrievalBudget }),
        ]
      : []),
    // At the depth limit an agent is built without the tools that start others: removed, not refused, so the model sees the truth.
    ...(depth < config.agents.maxDepth
      ? [
          createDelegateTool({ agents: delegableAgents(shared.customAgents), delegate: (request, context) => subAgents.delegate(request, context) }),
          ...CONSULTABLE_AGENTS.map((target) => createConsultTool(target, { consult: (request, context) => shared.knowledge.consult(request, consulter, context) })),
        ]
      : []),
  ];
  const tools: ToolRegistry = new ToolRegistry(toolsForRole(role, available), policy, approver, { readOnly: role.readOnly });
  const systemPrompt = buildSystemPrompt({
    root: services.paths.root,
    sylkHome: services.paths.sylkHome,
    toolNames: tools.names(),
    role: role.prompt(tools.names()),
    today: new Date().toISOString().slice(0, 10),
    platform: platform(),
  });
  // Memory files left out of the prompt are told once, with the first prompt (a sub-agent's are its caller's too).
  const unreadMemoryFiles = parent ? [] : systemPrompt.notes.map((message) => ({ kind: "project-file", message }));
  // Seed §3.3: pipeline agents prefetch within 1,000 tokens; the orchestrator gets its workflow instead of code.
  const hook = hookOf(role, options.placement ?? "main");
  const prefetchThresholds = () => (hook === "focused_prefetch" ? { ...learning.thresholds(), maxBudgetTokens: FOCUSED_PREFETCH_TOKENS } : learning.thresholds());
  const prefetchRuns = prefetchIsOn(config.context) && hook !== "workflow_context";

  return {
    get sessionId() {
      return recorder?.session.id ?? "";
    },
    provider,
    agentType: role.agentType,
    sandbox: sandbox.status,
    get permissionMode() {
      return policy.mode;
    },
    setPermissionMode: (mode) => policy.setMode(mode),
    evictNow: async () => (contextManager && recorder ? contextManager.evictNow(recorder) : []),
    editGroups: () => (recorder ? checkpoints.groups() : []),
    undo: async (force) => restored(recorder ? checkpoints.undoLast(force) : NOTHING_RESTORED, "undid the last prompt's file edits"),
    rewind: async (promptTurn, force) =>
      restored(recorder ? checkpoints.rewindTo(promptTurn, force) : NOTHING_RESTORED, `rewound the file edits made after turn ${promptTurn}`),
    diff: () => (recorder ? checkpoints.diff() : ""),
    requestHandoff: () => {
      if (!provider) return "There is no model to hand off: answers come from the index.";
      handoff.requestHandoff();
      if (!config.handoff.enabled) return "Handoffs are off (handoff.enabled): the next model call evicts instead.";
      if (degradationActionOf(categoryOf(agentType, "main")) === "evict") return `${role.name} agents evict rather than hand off: the next model call evicts.`;
      return "The next model call goes to a fresh instance with the prepared context.";
    },
    tasks: () => handoff.tasks(),
    handoffState: (reason) => handoff.stateNow(reason),
    settleMemory: async () => observations?.settled(),
    close: () => {
      void observations?.close();
      knowledge.close();
      // The root's knowledge agents live as long as it does; the last routing's outcome is settled.
      if (!options.shared) shared.knowledge.close();
      router?.close();
      handoff.close();
      learning.close();
      userProfiles.close();
    },
    learning: () => learning.summary(),
    filesChanged: (paths) => learning.filesChanged(paths),
    async *runCommand(command, signal) {
      const active = recorderFor(`!${command}`);
      const call = { id: `user_command_${randomUUID()}`, name: "run_command", input: { command } };
      yield { type: "tool_use", ...call };
      const result = yield* streamToolOutput(call.id, (onOutput) => tools.run(call, { ...toolContext, signal, onOutput }, { userApproved: true }));
      yield { type: "tool_result", id: call.id, name: call.name, ...result };
      await active.recordNote(`The user ran \`${command}\` themselves (${result.display ?? "done"}); what it printed:\n${result.output}`);
      const done: AgentResult = { sessionId: active.session.id, response: "", stopReason: "end_turn", turns: 0, toolCalls: 1, usage: EMPTY_USAGE };
      yield { type: "done", result: done };
      return done;
    },
    runPipeline(entered, signal) {
      const task = maskSecrets(entered).text;
      if (!provider) {
        const reason = "reason" in choice ? choice.reason : "no model configured";
        return answerFromIndex({ searcher: codeSearcher, recorder: recorderFor(task), reason }, task);
      }
      const model = provider.model;
      return runPipeline(
        {
          services,
          env,
          shared,
          root: {
            ensureSession: (title) => recorderFor(title).session.id,
            recordTurn: async (prompt, answer) => {
              const active = recorderFor(prompt);
              const turn = active.nextTurn();
              const promptId = await active.recordPrompt(`[pipeline] ${prompt}`, turn);
              await active.recordResponse(turn, { content: [{ type: "text", text: answer }], stopReason: "end_turn", usage: EMPTY_USAGE, model }, promptId);
            },
          },
          settings: { maxTurns: config.agents.maxTurns, models: config.agents.models, maxFixRounds: config.pipeline.maxFixRounds },
          planMode: () => policy.mode === "plan",
          canAsk: approver !== undefined,
          model: () => model,
        },
        task,
        signal,
      );
    },
    run(entered, signal) {
      // A secret pasted into a prompt is neither sent nor stored: the model and the history get it masked.
      const screened = maskSecrets(entered);
      const typed = screened.text;
      const { prompt, attachments, refused } = mentions.attach(typed);
      const active = recorderFor(typed);
      if (!provider) {
        const reason = "reason" in choice ? choice.reason : "no model configured";
        return answerFromIndex({ searcher: codeSearcher, recorder: active, reason }, typed);
      }
      const windowTokens = config.context.windowTokens ?? provider.contextWindow;
      const quality = handoff.controllerFor(active.session.id, provider.model, windowTokens, tokenCounter);
      contextManager ??= createContextManager({ config: config.context, contentStore: services.contentStore, tokenCounter, windowTokens, agentType });
      // The window always keeps room for the answer: at most a quarter of it.
      const maxTokens = Math.min(config.model.maxTokens, Math.floor(windowTokens / 4));
      if (!prefetcher) {
        prefetcher = createPrefetcher({
          services: { codeSearcher, contentStore: services.contentStore },
          sessionId: active.session.id,
          windowTokens,
          thresholds: prefetchThresholds,
        });
        learning.follow(prefetcher.metrics);
        const manager = contextManager;
        prefetcher.pressure.onChange((level) => manager.setPressure(level));
      }
      prefetcher.pressure.check();
      const run = runAgent(
        {
          provider,
          tools,
          toolContext,
          recorder: active,
          systemPrompt: systemPrompt.text,
          // Seed 003's context-aware adapter: the prompt's knowledge after the cached prompt (knowledge.enabled).
          systemContextFor: (query, lastError) => knowledge.systemContextFor(query, tools.specs().map(({ name, description }) => ({ name, description })), lastError),
          maxTurns: options.maxTurns ?? config.agent.maxTurns,
          maxParallel: config.agents.maxParallel,
          maxTokens,
          tokenCounter,
          contextManager,
          ...(prefetchRuns ? { prefetcher } : {}),
          onFileWrite: ({ promptTurn, toolUseId }, write) => {
            checkpoints.record(promptTurn, toolUseId, write);
            handoff.recordWrite(active.session.id, write);
            learning.fileWritten(write.shown);
          },
          quality,
        },
        withHookBlock(prompt),
        signal,
      );
      // A sub-agent's episode has no user to judge it: only the agent the user talks to teaches self-tuning retrieval.
      const followed = withSubAgentTotals(shared.usage, parent ? run : learning.track(prompt, run));
      const observed = observations ? afterRun(withReports(memoryReports, followed), () => observations.signal()) : followed;
      const secrets = screened.findings.length > 0 ? [{ kind: "secrets", message: maskedNotice(screened.findings) }] : [];
      const notices = [...secrets, ...unreadMemoryFiles.splice(0), ...refused.map(({ message }) => ({ kind: "mention", message }))];
      const told = notices.length > 0 ? withNotices(notices, observed) : observed;
      return attachments.length > 0 ? withAttachments(attachments, told) : told;
    },
  };
}
