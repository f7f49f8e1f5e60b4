import type { AgentEvent, AgentResult } from "../../agent/agent-events.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { AgentPlacement, AgentType } from "../../roles/agent-types.js";
import type { HandoffState } from "../../handoff/handoff-state.js";
import type { ResolvedRole } from "../../roles/resolve-role.js";
import type { SessionKind } from "../../store/session-repository.js";
import type { WorkflowSource } from "../workflow-block.js";

/*
 * What the team hosts (delegation, knowledge agents, the guide's routing,
 * pipelines) need of the sessions they open for their agents. The session
 * opener injects the factory, so the hosts never import it back.
 */

/** The conversation an agent works in, as the hosts see it: its id (known from the start) and who records in it now. */
export interface CallerConversation {
  readonly id: string;
  /** The agent instance recording now (a handoff changes it). */
  readonly agentId: string;
  readonly currentTurn: number;
}

/** A child agent's session, as a host drives it. */
export interface ChildSession {
  /** Its session id, known from the moment it is opened (its row is stored with its first prompt). */
  readonly sessionId: string;
  run(prompt: string, signal: AbortSignal): AsyncGenerator<AgentEvent, AgentResult>;
  /** What its edits changed, file by file (a pipeline's reviewer reads the engineer's). */
  diff(): string;
  /** The handoff state it would carry now (a pipeline's engineer stage stores it). */
  handoffState(reason: string): HandoffState | undefined;
  close(): void;
}

/** What a host decides about a child session; everything else it shares with the tree it is opened in. */
export interface ChildSessionOptions {
  /** The child's agent, resolved (a delegation may name a custom agent)... */
  role?: ResolvedRole;
  /** ...or a built-in type. */
  agentType?: AgentType;
  placement: AgentPlacement;
  /** The session and call that started it, its agent id, and how deep it is (the root is 0). */
  parent: { sessionId: string; toolUseId: string; agentId: string; kind: Exclude<SessionKind, "main">; depth: number };
  maxTurns: number;
  model?: string;
  /** Its own earlier session, to go on with (a knowledge or routed agent of a continued conversation). */
  resume?: { id: string };
  /** Tools it adds to its role's choice (a knowledge agent's `share_context`, a stage's structured tool). */
  extraTools?: readonly ToolDefinition[];
  /** The orchestrator's `[WORKFLOW]` block: a pipeline's state. */
  workflow?: () => WorkflowSource;
  /** Its questions to the user name this agent (a delegated agent's do). */
  asksAs?: string;
}

/** Opens a child session in the caller's session tree. */
export type OpenChildSession = (options: ChildSessionOptions) => ChildSession;
