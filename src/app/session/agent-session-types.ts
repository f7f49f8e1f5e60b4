import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { PermissionMode } from "../../agent/permissions/permission-policy.js";
import type { SessionRules } from "../../agent/permissions/session-rules.js";
import type { CommandSandbox, SandboxStatus } from "../../agent/sandbox/command-sandbox.js";
import type { CodeSearcher } from "../../agent/tools/search-codebase.js";
import type { TaskList } from "../../agent/tools/todo-write.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { Approver } from "../../agent/tools/tool-registry.js";
import type { AgentPlacement, AgentType } from "../../roles/agent-types.js";
import type { HandoffState } from "../../handoff/handoff-state.js";
import type { SessionEndReason } from "../../hooks/session/session-hook-points.js";
import type { ModelProvider } from "../../llm/model-types.js";
import type { ResolvedRole } from "../../roles/resolve-role.js";
import type { ContextReference } from "../../store/content-types.js";
import type { SessionKind } from "../../store/session-repository.js";
import type { EditGroup, RestoreResult } from "../file-checkpoints.js";
import type { RetrievalLearningSummary } from "../../learning/session/retrieval-learning.js";
import type { ProjectServices } from "../project-services.js";
import type { SessionPermissions } from "./session-permissions.js";
import type { SessionTree } from "./session-tree.js";
import type { WorkflowSource } from "../../team/workflow-block.js";
import type { McpServers } from "../../mcp/client/mcp-servers.js";

/** What `openAgentSession` takes and gives: one conversation with one agent (the main one, or a sub-agent). */
export interface AgentSessionOptions {
  services: ProjectServices;
  env: NodeJS.ProcessEnv;
  /** Overrides `permissions.mode` (the `--permission-mode` flag). */
  permissionMode?: PermissionMode;
  /** The rules the user added with `/permissions`, shared by every conversation of the screen; a new set by default. */
  sessionRules?: SessionRules;
  /** Asks the user about writes and commands; absent in scripted runs (they are refused). */
  approver?: Approver;
  /** Continue the latest session, or resume one by id (or id prefix). */
  resume?: { latest: true } | { id: string };
  /** Overrides `agent.maxTurns`. */
  maxTurns?: number;
  /** Directories outside the project the user allowed. */
  extraDirectories?: readonly string[];
  /** Where `run_command` runs; by default the sandbox this machine offers, as `sandbox.*` configures it. */
  sandbox?: CommandSandbox;
  /** Overrides `model.name` (`/model` in the TUI). */
  model?: string;
  /** Code search for the tools and prefetch; the project's own by default (`sylk ask` passes the interactive session's warm one). */
  codeSearcher?: CodeSearcher;
  /** Where self-tuning retrieval's Thompson samples come from (Math.random; tests seed it). */
  random?: () => number;
  /** The agent the user talks to (default), or one working inside a pipeline or for another agent. */
  placement?: AgentPlacement;
  /** Overrides `agent.type` (a sub-agent's role). */
  agentType?: AgentType;
  /**
   * The agent, resolved (`resolveRole`): its tools, prompt, hook, model and
   * the type its records carry. By default, the built-in or custom agent
   * that `agentType` or `agent.type` names (an unknown name is a usage error).
   */
  role?: ResolvedRole;
  /** A sub-agent: the session and call that started it, its agent id, and how deep it is (the root is 0). */
  parent?: { sessionId: string; toolUseId: string; agentId: string; kind: Exclude<SessionKind, "main">; depth: number };
  /** The session tree a sub-agent shares with the agent that started it; a root session makes its own. */
  tree?: SessionTree;
  /** The orchestrator's `[WORKFLOW]` block: a pipeline's state (the runner's); by default the session's task list. */
  workflow?: () => WorkflowSource;
  /** Tools this session adds to the role's choice (a knowledge agent's `share_context`); the role's list still decides. */
  extraTools?: readonly ToolDefinition[];
  /** The MCP servers the front end started: their tools join every agent's of the tree as they connect. */
  mcp?: McpServers;
}

export interface AgentSession {
  /** The conversation's id, known from the moment it is opened: a resumed session's own, or the one its first prompt stores. */
  readonly sessionId: string;
  /** Whether the conversation is stored: it was resumed, or a prompt (or a `!command`) has been recorded. */
  readonly started: boolean;
  readonly provider: ModelProvider | undefined;
  /** How this session's commands run: sandboxed, or not and why. */
  readonly sandbox: SandboxStatus;
  readonly permissionMode: PermissionMode;
  /** Shift+Tab in the TUI: what runs without asking from now on. */
  setPermissionMode(mode: PermissionMode): void;
  /** `/permissions`: the mode and rules in force, and the rules the user adds for this session. */
  readonly permissions: SessionPermissions;
  /**
   * `/evict`: everything the eviction strategy may take leaves the window
   * now, each part replaced by its reference; nothing before the first turn.
   */
  evictNow(): Promise<ContextReference[]>;
  /** The prompts whose file edits can be taken back, oldest first. */
  editGroups(): EditGroup[];
  /** `/undo`: the last prompt's edits taken back byte for byte (the model is told). */
  undo(force?: boolean): Promise<RestoreResult>;
  /** `/rewind <turn>`: the edits of every prompt after that one taken back. */
  rewind(promptTurn: number, force?: boolean): Promise<RestoreResult>;
  /** `/diff`: what this session's edits changed, file by file. */
  diff(): string;
  run(prompt: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult>;
  /** The agent type the user talks to (`agent.type`, `--agent`), as its records carry it (`custom:<name>` for a custom agent). */
  readonly agentType: string;
  /**
   * `/handoff`: the next model call goes to a fresh instance of the agent
   * with the prepared context (an agent that evicts evicts instead).
   * Returns what will happen, for the user.
   */
  requestHandoff(): string;
  /**
   * The session ends (the `SessionEnd` hooks, when a prompt was run), before
   * `close()`: what the hooks said, to show.
   */
  end(reason: SessionEndReason): Promise<AgentEvent[]>;
  /**
   * The end of the session: what the agent instance learned goes into the
   * profiles, and an observation still under way is cancelled (call
   * `settleMemory` first to let it finish). Call once, when the conversation closes.
   */
  close(): void;
  /** Waits for the background observation under way (observational memory), if any: before exiting, and in tests. */
  settleMemory(): Promise<void>;
  /** `/learning`: what self-tuning retrieval learned in this project (undefined when learning is off). */
  learning(): RetrievalLearningSummary | undefined;
  /** Files changed on disk (the project watcher): after an answer, they are the user's edits. */
  filesChanged(paths: readonly string[]): void;
  /** The task list the model keeps (`todo_write`), for the TUI's task panel. */
  tasks(): TaskList["items"];
  /** The handoff state this conversation would carry now, once a model call has run (a pipeline's engineer stage stores it). */
  handoffState(reason: string): HandoffState | undefined;
  /**
   * `!command` in the TUI: the user's own command, run as run_command runs
   * (sandboxed; what the policy denies stays denied), its output shown and
   * put in the conversation for the model to read with the next prompt.
   */
  runCommand(command: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult>;
  /**
   * `sylk ask --pipeline`, `/pipeline`: the task through the team's stages
   * (plan, design, implement, review and fix rounds, test, summary), each
   * agent in a child session of this one; the summary is the answer.
   */
  runPipeline(task: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult>;
  /** The MCP servers whose tools the session offers (`/mcp`, prompts as slash commands); absent when none are configured. */
  readonly mcp: McpServers | undefined;
}
