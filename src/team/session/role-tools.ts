import { createGetAgentCapabilitiesTool } from "../../agent/tools/role-tools/get-agent-capabilities.js";
import { createGetChronicleEntriesTool } from "../../agent/tools/role-tools/get-chronicle-entries.js";
import { createGetCoverageGapsTool } from "../../agent/tools/role-tools/get-coverage-gaps.js";
import { createGetCrossSessionPatternsTool } from "../../agent/tools/role-tools/get-cross-session-patterns.js";
import { createGetRecentChangesTool } from "../../agent/tools/role-tools/get-recent-changes.js";
import { createGetSymbolContextTool } from "../../agent/tools/role-tools/get-symbol-context.js";
import { chunksMentioningFrom } from "../../agent/tools/role-tools/symbol-mentions.js";
import { createSearchDecisionsTool } from "../../agent/tools/role-tools/search-decisions.js";
import { createSearchTestHistoryTool, testHistoryOf } from "../../agent/tools/role-tools/search-test-history.js";
import type { GitGate } from "../../agent/sandbox/repository-integrity.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import { agentListings } from "../../roles/agent-catalog.js";
import type { CustomAgent } from "../../roles/custom-agents.js";
import { ROUTING_CONTEXT } from "./guide-router.js";
import type { ProjectServices } from "../../app/project-services.js";

export interface RoleToolsContext {
  /** The custom agents the session tree loaded: get_agent_capabilities lists them beside the built-ins. */
  customAgents: readonly CustomAgent[];
  /** The running session. */
  sessionId: string;
  /** Tokens the window can still take: no tool answers with more. */
  availableTokens(): number;
  /** Says when Sylk must not run git in the project (a command replaced `.git`). */
  gitGate: GitGate;
}

/**
 * The role tools, each
 * over this project's real data. A session offers all of them; each role
 * gets those its spec lists.
 */
export function createRoleTools(services: ProjectServices, context: RoleToolsContext): ToolDefinition[] {
  const { availableTokens } = context;
  const routing = services.routing;
  return [
    createGetSymbolContextTool({
      symbols: services.files,
      chunksMentioning: chunksMentioningFrom(services.codeFullText, services.files),
      availableTokens,
    }),
    createGetRecentChangesTool({
      sessionChanges: () => sessionTreeChanges(services, context.sessionId),
      availableTokens,
      gitGate: context.gitGate,
    }),
    createSearchDecisionsTool({
      contentStore: services.contentStore,
      entries: services.entries,
      sessions: services.sessions,
      decisions: services.decisions,
      sessionId: () => context.sessionId,
      availableTokens,
    }),
    createGetChronicleEntriesTool({ entries: services.entries, availableTokens }),
    createGetCrossSessionPatternsTool({ patterns: services.patterns, availableTokens }),
    createSearchTestHistoryTool({ history: testHistoryOf(services.entries), availableTokens }),
    createGetCoverageGapsTool({ availableTokens }),
    createGetAgentCapabilitiesTool({
      agents: () => agentListings(context.customAgents),
      affinity: (agent) => {
        const stored = routing.affinity(agent, ROUTING_CONTEXT);
        return stored ? { mean: stored.alpha / (stored.alpha + stored.beta), observations: stored.observations } : undefined;
      },
    }),
  ];
}

/** The files this session and its sub-agents changed. */
function sessionTreeChanges(services: ProjectServices, sessionId: string) {
  const ids = [sessionId, ...services.sessions.descendants(sessionId).map((child) => child.id)];
  return ids.flatMap((id) => services.handoffs.filesChanged(id));
}
