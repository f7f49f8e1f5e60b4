import { platform } from "node:os";
import { buildSystemPrompt } from "../../agent/system-prompt.js";
import type { ToolContext } from "../../agent/tools/tool.js";
import { createProvider } from "../../llm/create-provider.js";
import { LoggingProvider } from "../../llm/logging-provider.js";
import type { CalibratedTokenCounter } from "../../llm/token-counter.js";
import { FOCUSED_PREFETCH_TOKENS, type hookOf } from "../../roles/role-registry.js";
import type { ResolvedRole } from "../../roles/resolve-role.js";
import { ObservationBuffer } from "../../knowledge/session/observation-buffer.js";
import { observerFor } from "../../knowledge/session/observer-provider.js";
import type { SessionRetrievalLearning } from "../../learning/session/session-retrieval-learning.js";
import type { ProjectServices } from "../project-services.js";
import type { SylkConfig } from "../../config/schema.js";
import { delegableAgents } from "../../agent/tools/delegate.js";
import { GuideRouter } from "../../team/session/guide-router.js";
import type { OpenChildSession } from "../../team/session/child-session.js";
import { SubAgentHost } from "../../team/session/sub-agent-host.js";
import type { AgentSessionOptions } from "./agent-session-types.js";
import { Conversation } from "./conversation.js";
import { resumedSession } from "./resumed-session.js";
import type { ModelChoice } from "./session-runtime.js";
import type { SessionTree } from "./session-tree.js";
import { SessionWindow, type SessionWindowDeps } from "./session-window.js";
import { SessionHandoff } from "../../handoff/session/session-handoff.js";
import type { UserProfiles } from "../user-profiles.js";

/** The window: what the model sees, evicted behind markers and prefetched within the learned thresholds. */
export function windowFor(deps: {
  services: ProjectServices;
  config: SylkConfig;
  agentType: ResolvedRole["handoffType"];
  tokenCounter: CalibratedTokenCounter;
  tree: SessionTree;
  conversation: Conversation;
  learning: SessionRetrievalLearning;
  /** The role's prefetch: pipeline agents prefetch within a focused budget. */
  roleHook: ReturnType<typeof hookOf>;
  beforeEvict: SessionWindowDeps["beforeEvict"];
}): SessionWindow {
  const { learning, roleHook } = deps;
  return new SessionWindow({
    services: deps.services,
    config: deps.config.context,
    agentType: deps.agentType,
    tokenCounter: deps.tokenCounter,
    codeSearcher: deps.tree.codeSearcher,
    sessionId: deps.conversation.id,
    thresholds: () =>
      roleHook === "focused_prefetch" ? { ...learning.thresholds(), maxBudgetTokens: FOCUSED_PREFETCH_TOKENS } : learning.thresholds(),
    learning,
    beforeEvict: deps.beforeEvict,
  });
}

/** The handoff controller of the agent's instances: `agentType`'s machinery, its records under the conversation's agent. */
export function handoffFor(deps: {
  services: ProjectServices;
  config: SylkConfig;
  conversation: Conversation;
  tree: SessionTree;
  userProfiles: UserProfiles;
  agentType: ResolvedRole["handoffType"];
  parent: AgentSessionOptions["parent"];
}): SessionHandoff {
  const { conversation, tree, agentType, parent } = deps;
  return new SessionHandoff(deps.services, deps.config, () => conversation.id, deps.userProfiles, {
    type: agentType,
    allocateAgentId: () => tree.agentIds.next(agentType),
    ...(parent ? { firstAgentId: parent.agentId } : {}),
    recording: () => (conversation.recorder ? { ...conversation.recorder.agent, turn: conversation.currentTurn } : undefined),
  });
}

/** Where the tools work. Sylk's home is no tool's to read or write, even where the project (or an allowed directory) holds it. */
export function toolContextFor(services: ProjectServices, tree: SessionTree): Omit<ToolContext, "signal"> {
  return { root: services.paths.root, extraDirectories: tree.extraDirectories, hiddenDirectories: [services.paths.sylkHome] };
}

/** The system prompt for the role and the tools it has, with the project's memory files. */
export function systemPromptFor(
  services: ProjectServices,
  role: ResolvedRole,
  toolNames: readonly string[],
  deferredNames: readonly string[] = [],
): ReturnType<typeof buildSystemPrompt> {
  return buildSystemPrompt({
    root: services.paths.root,
    sylkHome: services.paths.sylkHome,
    toolNames,
    deferredNames,
    role: role.prompt(toolNames),
    today: new Date().toISOString().slice(0, 10),
    platform: platform(),
  });
}

export function modelFor(name: string | undefined, services: ProjectServices, env: NodeJS.ProcessEnv): ModelChoice {
  const { config } = services.loadedConfig;
  const choice = createProvider(name ? { ...config.model, name } : config.model, env);
  if (!choice.provider) return { provider: undefined, offlineReason: "reason" in choice ? choice.reason : "no model configured" };
  return { provider: env.SYLK_MODEL_LOG ? new LoggingProvider(choice.provider, env.SYLK_MODEL_LOG) : choice.provider };
}

/** The conversation the session goes on with, or a new one (stored with its first prompt). */
export function conversationFor(options: AgentSessionOptions, role: ResolvedRole, model: ModelChoice): Conversation {
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

/** Observational memory: notes of a long conversation, written in the background as each run goes (observationalMemory.enabled). */
export function observationsFor(
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
export function teamFor(deps: {
  services: ProjectServices;
  role: ResolvedRole;
  conversation: Conversation;
  tree: SessionTree;
  openChild: OpenChildSession;
  depth: number;
  model: string | undefined;
  random: () => number;
  /** The consulted agents' retrieval budget: this window's. */
  retrievalBudget: () => number;
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
  const consulter = { conversation, agentType: deps.role.agentType, retrievalBudget: deps.retrievalBudget };
  return { subAgents, router, consulter };
}
