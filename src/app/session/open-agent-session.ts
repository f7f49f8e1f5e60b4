import { categoryOf, degradationActionOf } from "../../roles/agent-types.js";
import { CalibratedTokenCounter } from "../../llm/token-counter.js";
import { hookOf } from "../../roles/role-registry.js";
import { type ResolvedRole, resolveRoleIn } from "../../roles/resolve-role.js";
import { checkpointFingerprints } from "../checkpoint-fingerprint.js";
import { FileCheckpoints, type RestoreResult } from "../file-checkpoints.js";
import type { SessionHandoff } from "../../handoff/session/session-handoff.js";
import { type SessionHookPoints, sessionHookPointsFor } from "../../hooks/session/session-hook-points.js";
import type { ObservationBuffer } from "../../knowledge/session/observation-buffer.js";
import { SessionKnowledge } from "../../knowledge/session/session-knowledge.js";
import { SessionRetrievalLearning } from "../../learning/session/session-retrieval-learning.js";
import { Mentions } from "../mentions.js";
import type { ProjectServices } from "../project-services.js";
import type { SylkConfig } from "../../config/schema.js";
import type { GuideRouter } from "../../team/session/guide-router.js";
import type { OpenChildSession } from "../../team/session/child-session.js";
import { UserProfiles } from "../user-profiles.js";
import type { AgentSession, AgentSessionOptions } from "./agent-session-types.js";
import type { Conversation } from "./conversation.js";
import { CustomCommandRuns } from "./custom-command-runs.js";
import { type ModelChoice, SessionRuntime } from "./session-runtime.js";
import { toolsForSession } from "./session-tools.js";
import { sessionPermissions } from "./session-permissions.js";
import { SessionTree } from "./session-tree.js";
import type { SessionWindow } from "./session-window.js";
import {
  conversationFor,
  handoffFor,
  toolContextFor,
  modelFor,
  observationsFor,
  systemPromptFor,
  teamFor,
  windowFor,
} from "./session-parts.js";

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
  const handoff = handoffFor({ services, config, conversation, tree, userProfiles, agentType, parent: options.parent });
  const learning = new SessionRetrievalLearning(services, config, () => userProfiles.get(), options.random);
  const subAgentType = options.parent ? role.agentType : undefined;
  const hooks = sessionHookPointsFor({ services, env, tree, conversation, subAgentType, resumed: !!options.resume });
  // Pipeline agents prefetch within a focused budget; the orchestrator gets its workflow instead of code.
  const roleHook = hookOf(role, options.placement ?? "main");
  const tokenCounter = new CalibratedTokenCounter();
  const window = windowFor({
    services,
    config,
    agentType,
    tokenCounter,
    tree,
    conversation,
    learning,
    roleHook,
    beforeEvict: hooks.beforeEvict,
  });
  const knowledge = new SessionKnowledge(services, config, () => conversation.id);
  const observations = observationsFor(services, env, model, conversation, window);
  const team = teamFor({
    services,
    role,
    conversation,
    tree,
    openChild,
    depth,
    model: model.provider?.model,
    random: options.random ?? Math.random,
    retrievalBudget: () => window.retrievalBudget(),
  });
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
    toolHooks: hooks.toolHooks(),
  });
  const systemPrompt = systemPromptFor(services, role, tools.names(), tools.heldNames());
  const checkpoints = new FileCheckpoints(services.checkpoints, conversation.id, checkpointFingerprints(services.paths.sylkHome));
  const runtime = new SessionRuntime({
    services,
    config,
    model,
    hook: roleHook,
    isSubAgent: options.parent !== undefined,
    maxTurns: options.maxTurns ?? config.agent.maxTurns,
    workflow: options.workflow,
    conversation,
    tree,
    tools,
    toolContext: toolContextFor(services, tree),
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
    hooks,
    commands: options.parent ? undefined : new CustomCommandRuns({ sylkHome: services.paths.sylkHome, root: services.paths.root }, env),
    providerNamed: (name) => modelFor(name, services, env).provider,
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
    hooks,
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
  hooks: SessionHookPoints;
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
    end: (reason) => parts.hooks.end(reason),
    close: () => {
      // Callers wait for the observation under way first (settleMemory); what is still running now is cancelled, writing nothing.
      void observations.buffer?.close(0);
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
