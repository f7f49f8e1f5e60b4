import { PermissionPolicy } from "../../agent/permissions/permission-policy.js";
import { SessionRules } from "../../agent/permissions/session-rules.js";
import type { CommandSandbox } from "../../agent/sandbox/command-sandbox.js";
import { sandboxFor } from "../../agent/sandbox/open-command-sandbox.js";
import { RepositoryIntegrity } from "../../agent/sandbox/repository-integrity.js";
import { CommandProcesses } from "../../agent/tools/command-processes.js";
import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { Approver } from "../../agent/tools/tool-registry.js";
import { type CustomAgent, loadCustomAgents } from "../../roles/custom-agents.js";
import type { ProjectServices } from "../project-services.js";
import { AgentIdAllocator } from "../../team/session/agent-ids.js";
import { SubAgentUsage } from "../../team/session/child-run.js";
import type { ChildSessionOptions } from "../../team/session/child-session.js";
import { KnowledgeAgents } from "../../team/session/knowledge-agents.js";
import type { McpServers } from "../../mcp/client/mcp-servers.js";
import type { AgentSession, AgentSessionOptions } from "./agent-session-types.js";

/** Opens a session: `openAgentSession`, handed in so that the tree does not import its opener. */
export type SessionOpener = (options: AgentSessionOptions) => AgentSession;

export interface SessionTreeDeps {
  services: ProjectServices;
  env: NodeJS.ProcessEnv;
  /** The root's own choices; the tree's defaults come from the configuration. */
  root: Pick<AgentSessionOptions, "permissionMode" | "sandbox" | "codeSearcher" | "extraDirectories" | "approver" | "sessionRules" | "mcp">;
  /** The root conversation: every knowledge agent is its child, and agent ids are unique below it. */
  rootSessionId: string;
  /** The root's model (a knowledge agent uses it unless `agents.models` names another). */
  model: string | undefined;
  open: SessionOpener;
}

/**
 * What every agent of a session tree shares with the root that made it:
 * one permission policy (an "always" answer holds for the whole tree, and
 * plan mode binds every agent), one sandbox, one integrity check (a `.git`
 * one agent's command replaced stops every agent's git), the running
 * commands (stopped together when Sylk is ended), the code searcher, the
 * agent ids, the sub-agent usage the root reports, the custom agents the
 * root loaded and the knowledge agents `consult_*` reaches.
 */
export class SessionTree {
  readonly policy: PermissionPolicy;
  /** The rules the user added for this session (`/permissions`): the root's, or the tree's own. */
  readonly sessionRules: SessionRules;
  readonly sandbox: CommandSandbox;
  readonly integrity: RepositoryIntegrity;
  readonly processes = new CommandProcesses();
  readonly codeSearcher: CodeSearcher;
  readonly agentIds: AgentIdAllocator;
  /** Directories outside the project the user allowed. */
  readonly extraDirectories: readonly string[];
  /** The tree's sub-agent usage, summed where the root reports it (`/cost`, `stats.subagents`). */
  readonly usage = new SubAgentUsage();
  /** The custom agents the root loaded (`.sylk/agents`, `$SYLK_HOME/agents`): `delegate` may start them. */
  readonly customAgents: readonly CustomAgent[];
  /** The tree's long-lived knowledge agents, opened at their first consultation. */
  readonly knowledge: KnowledgeAgents;
  /** The MCP servers the front end started (their life is the front end's): every agent of the tree may use their tools. */
  readonly mcp: McpServers | undefined;

  constructor(private readonly deps: SessionTreeDeps) {
    const { services, env, root } = deps;
    const { config } = services.loadedConfig;
    this.sessionRules = root.sessionRules ?? new SessionRules();
    this.policy = new PermissionPolicy(root.permissionMode ?? config.permissions.mode, config.permissions, undefined, this.sessionRules);
    this.sandbox = root.sandbox ?? sandboxFor(config, env, services.paths.root);
    this.integrity = new RepositoryIntegrity(env);
    this.codeSearcher = root.codeSearcher ?? services.codeSearcher;
    this.agentIds = new AgentIdAllocator(services.sessions, deps.rootSessionId);
    this.extraDirectories = root.extraDirectories ?? [];
    this.mcp = root.mcp;
    // Errors in agent files are reported where the session starts (sylk ask, the TUI); the ones that load can be delegated to.
    this.customAgents = loadCustomAgents({ sylkHome: services.paths.sylkHome, root: services.paths.root }).agents;
    this.knowledge = new KnowledgeAgents({
      services,
      rootSessionId: deps.rootSessionId,
      // Whoever consults them, the knowledge agents belong to the root: their questions go to its approver.
      openSession: (child) => this.open(child, root.approver),
      agentIds: this.agentIds,
      usage: this.usage,
      settings: { maxTurns: config.agents.maxTurns, models: config.agents.models },
      model: deps.model,
    });
  }

  /** A child session in this tree, asking the user through `approver` (named after the child when it asks as itself). */
  open(child: ChildSessionOptions, approver: Approver | undefined): AgentSession {
    const { asksAs, ...options } = child;
    const asks = approver && asksAs ? named(approver, asksAs) : approver;
    return this.deps.open({
      services: this.deps.services,
      env: this.deps.env,
      ...options,
      tree: this,
      ...(asks ? { approver: asks } : {}),
    });
  }

  /** The root closes: its knowledge agents end with it. */
  close(): void {
    this.knowledge.close();
  }
}

function named(approver: Approver, agentId: string): Approver {
  // The deepest agent names itself: an id already set by a sub-agent of this one stays.
  return (request) => approver({ agentId, ...request });
}
