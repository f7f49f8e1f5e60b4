import { createBuiltinTools } from "../../agent/tools/builtin-tools.js";
import { CONSULTABLE_AGENTS, createConsultTool } from "../../agent/tools/consult.js";
import { createContextTools } from "../../agent/tools/context-tools.js";
import { createDelegateTool, delegableAgents } from "../../agent/tools/delegate.js";
import { createGetRoutingHistoryTool } from "../../agent/tools/role-tools/get-routing-history.js";
import { recordTestRuns } from "../../agent/tools/role-tools/record-test-runs.js";
import { createRouteToAgentTool } from "../../agent/tools/route-to-agent.js";
import { DeferredTools } from "../../agent/tools/deferred-tools.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { ToolHooks } from "../../agent/tools/tool-hooks.js";
import { type Approver, ToolRegistry, type ToolRunResult } from "../../agent/tools/tool-registry.js";
import type { SylkConfig } from "../../config/schema.js";
import { ContextRetriever } from "../../context/context-retriever.js";
import { NO_WINDOW, windowViewOf } from "../../context/recall-order.js";
import { CORE_TOOLS } from "../../roles/core-tools.js";
import { toolsForRole } from "../../roles/role-registry.js";
import type { ResolvedRole } from "../../roles/resolve-role.js";
import type { SessionHandoff } from "../../handoff/session/session-handoff.js";
import type { SessionKnowledge } from "../../knowledge/session/session-knowledge.js";
import { mcpOutputStore } from "../../mcp/session/mcp-output-store.js";
import { mcpTools } from "../../mcp/session/mcp-tools.js";
import type { ProjectServices } from "../project-services.js";
import type { GuideRouter } from "../../team/session/guide-router.js";
import type { Consulter } from "../../team/session/knowledge-agents.js";
import { createRoleTools } from "../../team/session/role-tools.js";
import type { SubAgentHost } from "../../team/session/sub-agent-host.js";
import { createWebFetchTool } from "../../agent/tools/web-fetch.js";
import type { Conversation } from "./conversation.js";
import { keepFetchedPage } from "./fetched-pages.js";
import type { SessionTree } from "./session-tree.js";
import type { SessionWindow } from "./session-window.js";

export interface SessionToolsDeps {
  services: ProjectServices;
  config: SylkConfig;
  role: ResolvedRole;
  tree: SessionTree;
  approver: Approver | undefined;
  conversation: Conversation;
  window: SessionWindow;
  handoff: SessionHandoff;
  knowledge: SessionKnowledge;
  /** The team this agent may start; `subAgents` absent at the depth limit, `router` for the guide only. */
  team: { subAgents: SubAgentHost | undefined; router: GuideRouter | undefined; consulter: Consulter };
  /** Tools the session adds (a knowledge agent's `share_context`); the role's list still decides. */
  extraTools: readonly ToolDefinition[];
  /** The user's `PreToolUse` and `PostToolUse` hooks around every call (none configured: undefined). */
  toolHooks: ToolHooks | undefined;
}

/**
 * The tools of one agent: every tool a session can offer, narrowed to its
 * role's list, behind the tree's permission policy and the session's
 * approver (read-only roles may not write at all). Its core tools are sent
 * with every request; the rest wait until the model loads them with
 * `find_tools` (see `DeferredTools`).
 */
export function toolsForSession(deps: SessionToolsDeps): ToolRegistry {
  const { services, config, tree, conversation, window, handoff, knowledge, team } = deps;
  const retrievalBudget = () => window.retrievalBudget();
  const builtins = createBuiltinTools({
    codeSearcher: tree.codeSearcher,
    grepThread: services.grepThread,
    grepIndex: services.grepIndex,
    ripgrep: services.ripgrep,
    foreground: services.foregroundWork,
    indexConfig: services.loadedConfig.config.index,
    sandbox: tree.sandbox,
    networkFor: async (command) => config.sandbox.network || (await tree.policy.allowsNetwork(command)),
    integrity: tree.integrity,
    processes: tree.processes,
  });
  // Every check command's run (tests, build, typecheck, lint) is also a test_result entry: search_test_history reads them.
  const withTestRuns = recordTestRuns(builtins, { record: async (entry) => conversation.recorder?.recordDerived(entry) });
  const contextTools = createContextTools({
    retriever: new ContextRetriever(services.contentStore),
    contentStore: services.contentStore,
    sessionId: () => conversation.id,
    availableTokens: retrievalBudget,
    sessionTree: (id) => [id, ...services.sessions.descendants(id).map((child) => child.id)],
    onRetrieved: (entries) => window.retrieved(entries, conversation.currentTurn),
    window: (toolUseId) => {
      const recorder = conversation.recorder;
      return recorder ? windowViewOf(recorder, toolUseId) : NO_WINDOW;
    },
  });
  const available: ToolDefinition[] = [
    ...handoff.trackCommands(knowledge.watch(withTestRuns), tree.integrity),
    // Skills run their steps through this session's own registry (built just below).
    ...knowledge.tools({
      run: (call, context): Promise<ToolRunResult> => tools.run(call, context, { unlisted: true }),
      names: (): string[] => tools.names(),
    }),
    ...contextTools,
    handoff.todoTool(),
    createWebFetchTool({ keep: (page) => keepFetchedPage(services.contentStore, conversation.recorder, page) }),
    ...createRoleTools(services, {
      sessionId: conversation.id,
      availableTokens: retrievalBudget,
      customAgents: tree.customAgents,
      gitGate: tree.integrity,
    }),
    ...deps.extraTools,
    ...(team.router ? routingTools(services, team.router, retrievalBudget) : []),
    ...(team.subAgents ? teamTools(tree, team.subAgents, team.consulter) : []),
  ];
  const mcp = tree.mcp;
  // A server's large output, images and resources are kept as entries of the conversation whose agent called it.
  const sink = mcpOutputStore({ contentStore: services.contentStore, recorder: () => conversation.recorder });
  // What a resumed conversation loaded with find_tools stays loaded.
  const deferred = new DeferredTools(CORE_TOOLS);
  deferred.restore(conversation.recorder?.messages() ?? []);
  const tools: ToolRegistry = new ToolRegistry(toolsForRole(deps.role, available), tree.policy, deps.approver, {
    readOnly: deps.role.readOnly,
    deferred,
    ...(deps.toolHooks ? { hooks: deps.toolHooks } : {}),
    ...(mcp ? { dynamicTools: () => mcpTools(mcp, sink) } : {}),
  });
  return tools;
}

/** The guide's: give the prompt to an agent, and read how routing went before. */
function routingTools(services: ProjectServices, router: GuideRouter, availableTokens: () => number): ToolDefinition[] {
  return [
    createRouteToAgentTool({ agents: delegableAgents(), route: (request, context) => router.route(request, context) }),
    createGetRoutingHistoryTool({ history: (query) => services.routing.history(query), availableTokens }),
  ];
}

/** The tools that start other agents: a sub-agent for a task, and the tree's knowledge agents. */
function teamTools(tree: SessionTree, subAgents: SubAgentHost, consulter: Consulter): ToolDefinition[] {
  return [
    createDelegateTool({
      agents: delegableAgents(tree.customAgents),
      delegate: (request, context) => subAgents.delegate(request, context),
    }),
    ...CONSULTABLE_AGENTS.map((target) =>
      createConsultTool(target, { consult: (request, context) => tree.knowledge.consult(request, consulter, context) }),
    ),
  ];
}
