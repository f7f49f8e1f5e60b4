import type { PermissionMode } from "../../agent/permissions/permission-policy.js";
import { sandboxLabel } from "../../agent/sandbox/command-sandbox.js";
import type { IndexView } from "../../app/background-indexing.js";
import type { AgentSession } from "../../app/session/open-agent-session.js";
import { DEFAULT_AGENT_TYPE } from "../../roles/agent-types.js";
import type { AgentViewState } from "../agent-state.js";
import { costSoFar, windowTokensOf } from "./session-figures.js";
import type { StatusInfo } from "./status-text.js";

/** What the screen knows besides the conversation: the index, the permission mode, the open questions. */
export interface ScreenFigures {
  index: IndexView;
  mode: PermissionMode;
  /** Questions the agents left for the user. */
  questions: number;
  /** The window the user configured, if any. */
  configuredWindowTokens: number | undefined;
}

/** The status line's figures for a conversation: its model and window, agents at work, quality, cost and sandbox. */
export function sessionStatusInfo(
  state: AgentViewState,
  session: Pick<AgentSession, "provider" | "agentType" | "sandbox">,
  screen: ScreenFigures,
): StatusInfo {
  const { provider } = session;
  return {
    model: provider ? { name: provider.model, contextWindow: windowTokensOf(state, screen.configuredWindowTokens, provider) } : undefined,
    ...(session.agentType !== DEFAULT_AGENT_TYPE ? { agent: session.agentType } : {}),
    contextTokens: state.contextTokens,
    references: state.references,
    activeAgents: state.tools.flatMap((tool) => (tool.subagent && tool.subagent.tokens === undefined ? [tool.subagent.agentId] : [])),
    questions: screen.questions,
    ...(state.predictedQuality !== undefined
      ? { quality: { predicted: state.predictedQuality, ...(state.agentId ? { agentId: state.agentId } : {}) } }
      : {}),
    index: screen.index,
    mode: screen.mode,
    ...(provider ? { costDollars: costSoFar(state, provider) } : {}),
    ...(provider ? { sandbox: sandboxLabel(session.sandbox) } : {}),
  };
}
