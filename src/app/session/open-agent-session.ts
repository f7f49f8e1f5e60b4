import { platform } from "node:os";
import { buildSystemPrompt } from "../../agent/system-prompt.js";
import type { ToolContext } from "../../agent/tools/tool.js";
import { categoryOf, degradationActionOf } from "../../roles/agent-types.js";
import { createProvider } from "../../llm/create-provider.js";
import { LoggingProvider } from "../../llm/logging-provider.js";
import { CalibratedTokenCounter } from "../../llm/token-counter.js";
import { FOCUSED_PREFETCH_TOKENS, hookOf } from "../../roles/role-registry.js";
import { type ResolvedRole, resolveRoleIn } from "../../roles/resolve-role.js";
import { checkpointFingerprints } from "../checkpoint-fingerprint.js";
import { FileCheckpoints, type RestoreResult } from "../file-checkpoints.js";
import { SessionHandoff } from "../../handoff/session/session-handoff.js";
import { ObservationBuffer } from "../../knowledge/session/observation-buffer.js";
import { observerFor } from "../../knowledge/session/observer-provider.js";
import { SessionKnowledge } from "../../knowledge/session/session-knowledge.js";
import { SessionRetrievalLearning } from "../../learning/session/session-retrieval-learning.js";
import { Mentions } from "../mentions.js";
import type { ProjectServices } from "../project-services.js";
import type { SylkConfig } from "../../config/schema.js";
import { delegableAgents } from "../../agent/tools/delegate.js";
import { GuideRouter } from "../../team/session/guide-router.js";
import type { OpenChildSession } from "../../team/session/child-session.js";
import { SubAgentHost } from "../../team/session/sub-agent-host.js";
import { UserProfiles } from "../user-profiles.js";
import type { AgentSession, AgentSessionOptions } from "./agent-session-types.js";
import { Conversation } from "./conversation.js";
import { resumedSession } from "./resumed-session.js";
import { type ModelChoice, SessionRuntime } from "./session-runtime.js";
import { toolsForSession } from "./session-tools.js";
import { sessionPermissions } from "./session-permissions.js";
import { SessionTree } from "./session-tree.js";
import { SessionWindow } from "./session-window.js";

export type { AgentSession, AgentSessionOptions };

const NOTHING_RESTORED: RestoreResult = { promptTurns: [], restored: [], conflicts: [], refused: [] };

/**
 * Wires one conversation: the model (or, with none configured, the index),
 * the tools behind the permission policy, the recorder and the system
 * prompt. Shared by `sylk ask` and the TUI; a sub-agent's session is opened
 * the same way, in the tree of the agent that started it.
 */
export function openAgentSession(options: AgentSessionOptions): AgentSession {
  const { services, env } = options;
  const { config } = services.loadedConfig;
  const role =
    options.role ?? resolveRoleIn(options.agentType ?? config.agent.type, { sylkHome: services.paths.sylkHome, root: services.paths.root });
  const model = modelFor(options.model ?? role.model, services, env);
  // Started while the first request is under way, so the first grep does not wait for the thread to load.
  if (model.provider) services.grepThread.warmUp();
  const conversation = conversationFor(options, role, model);
  const tree =
    options.tree ??
    new SessionTree({ services, env, root: options, rootSessionId: conversation.id, model: model.provider?.model, open: openAgentSession });
  const approver = options.approver;
  const openChild: OpenChildSession = (child) => tree.open(child, approver);
  /** The built-in type whose handoff machinery the agent uses; its records carry `role.agentType`. */
  const agentType = role.handoffType;
  const depth = options.parent?.depth ?? 0;
  const userProfiles = new UserProfiles(services.paths.sylkHome);
  const handoff = new SessionHandoff(services, config, () => conversation.id, userProfiles, {
    type: agentType,
    allocateAgentId: () => tree.agentIds.next(agentType),
    ...(options.parent ? { firstAgentId: options.parent.agentId } : {}),
    recording: () => (conversation.recorder ? { ...conversation.recorder.agent, turn: conversation.currentTurn } : undefined),
  });
  const learning = new SessionRetrievalLearning(services, config, () => userProfiles.get(), options.random);
  // Pipeline agents prefetch within a focused budget; the orchestrator gets its workflow instead of code.
  const hook = hookOf(role, options.placement ?? "main");
  const tokenCounter = new CalibratedTokenCounter();
  const window = new SessionWindow({
    services,
    config: config.context,
    agentType,
    tokenCounter,
    codeSearcher: tree.codeSearcher,
    sessionId: conversation.id,
    thresholds: () =>
      hook === "focused_prefetch" ? { ...learning.thresholds(), maxBudgetTokens: FOCUSED_PREFETCH_TOKENS } : learning.thresholds(),
    learning,
  });
  const knowledge = new SessionKnowledge(services, config, () => conversation.id);
  const observations = observationsFor(services, env, model, conversation, window);
  const team = {
    ...teamFor({
      services,
      role,
      conversation,
      tree,
      openChild,
      depth,
      model: model.provider?.model,
      random: options.random ?? Math.random,
    }),
    consulter: { conversation, agentType: role.agentType, retrievalBudget: () => window.retrievalBudget() },
  };
  const tools = toolsForSession({
    services,
    config,
    role,
    tree,
    approver,
    conversation,
    window,
    handoff,
    knowledge,
    team,
    extraTools: options.extraTools ?? [],
  });
  const systemPrompt = buildSystemPrompt({
    root: services.paths.root,
    sylkHome: services.paths.sylkHome,
    toolNames: tools.names(),
    role: role.prompt(tools.names()),
    today: new Date().toISOString().slice(0, 10),
    platform: platform(),
  });
  // Sylk's home is no tool's to read or write, even where the project (or an allowed directory) holds it.
  const toolContext: Omit<ToolContext, "signal"> = {
    root: services.paths.root,
    extraDirectories: tree.extraDirectories,
    hiddenDirectories: [services.paths.sylkHome],
  };
  const checkpoints = new FileCheckpoints(services.checkpoints, conversation.id, checkpointFingerprints(services.paths.sylkHome));
  const runtime = new SessionRuntime({
    services,
    config,
    model,
    hook,
    isSubAgent: options.parent !== undefined,
    maxTurns: options.maxTurns ?? config.agent.maxTurns,
    workflow: options.workflow,
    conversation,
    tree,
    tools,
    toolContext,
    systemPrompt: systemPrompt.text,
    // Memory files left out of the prompt are told once, with the first prompt (a sub-agent's are its caller's too).
    firstNotices: options.parent ? [] : systemPrompt.notes.map((message) => ({ kind: "project-file", message })),
    window,
    tokenCounter,
    handoff,
    learning,
    knowledge,
    observations,
    router: team.router,
    mentions: new Mentions(services.paths.root, services.files),
    checkpoints,
    openChild,
    canAsk: approver !== undefined,
  });
  return sessionOf({
    services,
    config,
    toolNames: tools.names(),
    role,
    model,
    conversation,
    tree,
    ownsTree: !options.tree,
    window,
    checkpoints,
    handoff,
    learning,
    userProfiles,
    knowledge,
    observations,
    router: team.router,
    runtime,
  });
}

interface SessionParts {
  services: ProjectServices;
  config: SylkConfig;
  /** The tools the agent has: the names a rule may give. */
  toolNames: readonly string[];
  role: ResolvedRole;
  model: ModelChoice;
  conversation: Conversation;
  tree: SessionTree;
  /** A root session made its tree, and closes it. */
  ownsTree: boolean;
  window: SessionWindow;
  checkpoints: FileCheckpoints;
  handoff: SessionHandoff;
  learning: SessionRetrievalLearning;
  userProfiles: UserProfiles;
  knowledge: SessionKnowledge;
  observations: { buffer: ObservationBuffer | undefined };
  router: GuideRouter | undefined;
  runtime: SessionRuntime;
}

/** The session as its callers (the TUI, `sylk ask`, the team hosts) see it. */
function sessionOf(parts: SessionParts): AgentSession {
  const {
    config,
    role,
    model,
    conversation,
    tree,
    window,
    checkpoints,
    handoff,
    learning,
    userProfiles,
    knowledge,
    observations,
    router,
    runtime,
  } = parts;
  const agentType = role.handoffType;
  /** The model learns of edits taken back with its next prompt; the files are not what it last saw. */
  const restored = async (result: RestoreResult, how: string) => {
    const files = result.restored.join(", ");
    if (result.restored.length > 0) {
      await conversation.recorder?.recordNote(`The user ${how}: ${files} are back as they were before.`, {
        outcome: `${how[0]?.toUpperCase()}${how.slice(1)}: ${files}`,
      });
    }
    return result;
  };
  return {
    get sessionId() {
      return conversation.id;
    },
    get started() {
      return conversation.started;
    },
    provider: model.provider,
    agentType: role.agentType,
    sandbox: tree.sandbox.status,
    get permissionMode() {
      return tree.policy.mode;
    },
    setPermissionMode: (mode) => tree.policy.setMode(mode),
    permissions: sessionPermissions(tree, parts.services.loadedConfig, parts.toolNames),
    evictNow: async () => window.evictNow(conversation.recorder),
    editGroups: () => (conversation.started ? checkpoints.groups() : []),
    undo: async (force) =>
      restored(conversation.started ? checkpoints.undoLast(force) : NOTHING_RESTORED, "undid the last prompt's file edits"),
    rewind: async (promptTurn, force) =>
      restored(
        conversation.started ? checkpoints.rewindTo(promptTurn, force) : NOTHING_RESTORED,
        `rewound the file edits made after turn ${promptTurn}`,
      ),
    diff: () => (conversation.started ? checkpoints.diff() : ""),
    requestHandoff: () => {
      if (!model.provider) return "There is no model to hand off: answers come from the index.";
      handoff.requestHandoff();
      if (!config.handoff.enabled) return "Handoffs are off (handoff.enabled): the next model call evicts instead.";
      if (degradationActionOf(categoryOf(agentType, "main")) === "evict")
        return `${role.name} agents evict rather than hand off: the next model call evicts.`;
      return "The next model call goes to a fresh instance with the prepared context.";
    },
    tasks: () => handoff.tasks(),
    handoffState: (reason) => handoff.stateNow(reason),
    settleMemory: async () => observations.buffer?.settled(),
    close: () => {
      void observations.buffer?.close();
      knowledge.close();
      // The root's knowledge agents live as long as it does; the last routing's outcome is settled.
      if (parts.ownsTree) tree.close();
      router?.close();
      handoff.close();
      learning.close();
      userProfiles.close();
    },
    learning: () => learning.summary(),
    filesChanged: (paths) => learning.filesChanged(paths),
    mcp: tree.mcp,
    runCommand: (command, signal) => runtime.runCommand(command, signal),
    runPipeline: (task, signal) => runtime.runPipeline(task, signal),
    run: (prompt, signal) => runtime.run(prompt, signal),
  };
}

/** The model the session talks to (logged when `SYLK_MODEL_LOG` says where), or why there is none. */
function modelFor(name: string | undefined, services: ProjectServices, env: NodeJS.ProcessEnv): ModelChoice {
  const { config } = services.loadedConfig;
  const choice = createProvider(name ? { ...config.model, name } : config.model, env);
  if (!choice.provider) return { provider: undefined, offlineReason: "reason" in choice ? choice.reason : "no model configured" };
  return { provider: env.SYLK_MODEL_LOG ? new LoggingProvider(choice.provider, env.SYLK_MODEL_LOG) : choice.provider };
}

/** The conversation the session goes on with, or a new one (stored with its first prompt). */
function conversationFor(options: AgentSessionOptions, role: ResolvedRole, model: ModelChoice): Conversation {
  const { services, parent } = options;
  const deps = {
    sessions: services.sessions,
    contentStore: services.contentStore,
    identity: { agentId: parent?.agentId ?? `${role.agentType}-1`, agentType: role.agentType },
  };
  const origin = {
    provider: model.provider?.name ?? "none",
    model: model.provider?.model ?? "index-only",
    ...(parent
      ? {
          parent: {
            parentSessionId: parent.sessionId,
            parentToolUseId: parent.toolUseId,
            agentId: parent.agentId,
            agentType: role.agentType,
            kind: parent.kind,
          },
        }
      : {}),
  };
  // A knowledge agent goes on with its own session; only root sessions are found by prefix or as the latest.
  const resumed = options.resume ? resumedSession(services, options.resume, parent !== undefined) : undefined;
  return resumed ? Conversation.resume(deps, origin, resumed) : Conversation.begin(deps, origin);
}

/** Observational memory: notes of a long conversation, written in the background after each turn (observationalMemory.enabled). */
function observationsFor(
  services: ProjectServices,
  env: NodeJS.ProcessEnv,
  model: ModelChoice,
  conversation: Conversation,
  window: SessionWindow,
) {
  const { config } = services.loadedConfig;
  const reports: string[] = [];
  if (!config.observationalMemory.enabled) return { buffer: undefined, reports };
  const buffer = new ObservationBuffer({
    store: services.contentStore,
    sessionId: conversation.id,
    rows: () => conversation.recorder?.rows() ?? [],
    observer: observerFor(config, env, model.provider),
    settings: config.observationalMemory,
    report: (message) => reports.push(message),
    compact: async (through, summary) =>
      window.compactObserved(conversation.recorder, through, config.observationalMemory.maxMessageTokenBudget, summary),
  });
  return { buffer, reports };
}

/** The agents this one may start: sub-agents below the depth limit, and the guide's routing. */
function teamFor(deps: {
  services: ProjectServices;
  role: ResolvedRole;
  conversation: Conversation;
  tree: SessionTree;
  openChild: OpenChildSession;
  depth: number;
  model: string | undefined;
  random: () => number;
}) {
  const { services, tree, conversation, openChild, model } = deps;
  const { config } = services.loadedConfig;
  const settings = { maxTurns: config.agents.maxTurns, models: config.agents.models };
  // At the depth limit an agent is built without the tools that start others: removed, not refused, so the model sees the truth.
  const subAgents =
    deps.depth < config.agents.maxDepth
      ? new SubAgentHost({
          services,
          caller: { conversation, depth: deps.depth },
          openSession: openChild,
          agentIds: tree.agentIds,
          usage: tree.usage,
          customAgents: tree.customAgents,
          settings,
          model,
        })
      : undefined;
  // The guide routes each prompt to an agent; other roles have no router.
  const router =
    deps.role.agentType === "guide"
      ? new GuideRouter({
          services,
          guide: conversation,
          openSession: openChild,
          agentIds: tree.agentIds,
          usage: tree.usage,
          agents: delegableAgents().map((agent) => agent.name),
          settings,
          model,
          random: deps.random,
        })
      : undefined;
  return { subAgents, router };
}
