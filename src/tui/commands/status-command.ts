import { describeSandbox } from "../../agent/sandbox/command-sandbox.js";
import { checkIndex } from "../../app/doctor.js";
import { formatDollars } from "../../llm/model-prices.js";
import { sessionIndexState } from "../format/index-state.js";
import { PERMISSION_MODE_HINTS } from "../format/permission-modes.js";
import { costSoFar, modelDescription, windowTokensOf } from "../format/session-figures.js";
import { tokenSegment } from "../format/status-text.js";
import type { SlashCommandContext } from "./slash-context.js";

/**
 * `/status`: the session on one screen: model, agent, permission mode,
 * sandbox, index, the window now and the cost so far. Each line is what
 * `/model`, the status line, `/cost` and `sylk status` compute, in full.
 */
export function statusCommand(context: SlashCommandContext): void {
  const { agent, project } = context;
  const { session, state } = agent;
  const provider = session.provider;
  const index = checkIndex(sessionIndexState(context.indexing.snapshot(), project.indexDamage()));
  const window = provider ? windowTokensOf(state, project.settings.windowTokens, provider) : undefined;
  const inWindow =
    provider && window
      ? tokenSegment({ model: { name: provider.model, contextWindow: window }, contextTokens: state.contextTokens })
      : undefined;
  const cost = provider ? costSoFar(state, provider) : undefined;
  const lines = [
    ["Model", modelDescription(provider)],
    ["Agent", `${session.agentType} (agent.type, or --agent)`],
    ["Permissions", `${session.permissionMode} mode: ${PERMISSION_MODE_HINTS[session.permissionMode]} (/permissions: the rules)`],
    ["Sandbox", describeSandbox(session.sandbox)],
    ["Index", `${index.detail}${index.fix ? `; ${index.fix}` : ""}`],
    ["Window", inWindow ? `${inWindow.full} in it now` : "no model, so no window"],
    ["Cost", costLine(provider?.model, cost)],
    ["Session", `${session.sessionId.slice(0, 8)}${session.started ? "" : " (stored with its first prompt)"}`],
  ];
  agent.print({ kind: "note", tone: "info", text: lines.map(([label, value]) => `${`${label}:`.padEnd(13)}${value}`).join("\n") });
}

function costLine(model: string | undefined, dollars: number | undefined): string {
  if (model === undefined) return "nothing: no model is called";
  if (dollars === undefined) return `no price known for ${model}, so no estimate (/cost counts the tokens)`;
  return `about ${formatDollars(dollars)} so far at ${model}'s list prices, sub-agents included (an estimate; /cost has the tokens)`;
}
