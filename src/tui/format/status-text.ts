import type { PermissionMode } from "../../agent/permissions/permission-policy.js";
import { formatCount } from "../../format/numbers.js";
import { formatDollars } from "../../llm/model-prices.js";
import type { IndexView } from "../../app/background-indexing.js";
import { compactNumber, truncate } from "./text.js";

export interface StatusInfo {
  model: { name: string; contextWindow: number } | undefined;
  /** The agent the user talks to, when it is not the default one (`--agent librarian`, `agent.type`). */
  agent?: string;
  /** Tokens in the window at the latest model call. */
  contextTokens: number | undefined;
  /** Context reference markers in the window (shown once there are any). */
  references?: number;
  index: IndexView;
  mode: PermissionMode;
  /** Whether commands run sandboxed (absent without a model: nothing runs). */
  sandbox?: { full: string; short: string };
  /** Estimated cost of this session's model calls in dollars (known models only). */
  costDollars?: number;
  /** The agent's predicted quality for its next turn (the handoff controller's curve), and the instance after a handoff. */
  quality?: { predicted: number; agentId?: string };
  /** Sub-agents at work now (their agent ids). */
  activeAgents?: readonly string[];
  /** Questions the agents left for the user, answered with /memory answer. */
  questions?: number;
}

const SEPARATOR = " · ";

interface Segment {
  full: string;
  short: string;
}

/**
 * The status line for a terminal `columns` wide: every segment in full when
 * it fits; otherwise short forms, then the least useful segments go, and a
 * last resort cuts the line. It never wraps.
 */
export function statusText(info: StatusInfo, columns: number): string {
  const model = modelSegment(info);
  const agent = info.agent ? { full: `agent: ${info.agent}`, short: truncate(info.agent, 16) } : undefined;
  const tokens = tokenSegment(info);
  const references = referenceSegment(info.references ?? 0);
  const index = indexSegment(info.index);
  const mode = modeSegment(info.mode);
  const sandbox = info.sandbox;
  const quality = qualitySegment(info.quality);
  const agents = agentsSegment(info.activeAgents ?? []);
  const questions = info.questions
    ? { full: `${info.questions} question${info.questions === 1 ? "" : "s"} for you (/memory)`, short: `${info.questions}?` }
    : undefined;
  const cost =
    info.costDollars !== undefined && info.costDollars > 0
      ? { full: `${formatDollars(info.costDollars)} est.`, short: formatDollars(info.costDollars) }
      : undefined;
  const all = [model, agent, tokens, quality, agents, questions, cost, references, index, mode, sandbox].filter(
    (segment): segment is Segment => segment !== undefined,
  );
  const withoutCost = all.filter((segment) => segment !== cost);
  // Short forms that lose nothing a user reads the line for: "q 0.87", "accept-edits", "sandboxed".
  const terse = (segment: Segment) => (segment === quality || segment === mode || segment === sandbox ? segment.short : segment.full);
  const candidates: Array<Array<string | undefined>> = [
    all.map((segment) => segment.full),
    all.map((segment) => (segment === quality ? segment.short : segment.full)),
    all.map(terse),
    // Then the estimate goes: the window, the index and the mode matter more.
    withoutCost.map((segment) => segment.full),
    withoutCost.map((segment) => (segment === quality ? segment.short : segment.full)),
    all.map((segment) => segment.short),
    withoutCost.map((segment) => segment.short),
    [model.short, agent?.short, tokens?.short, quality?.short, agents?.short, index.short, mode?.short, sandbox?.short],
    [model.short, agent?.short, tokens?.short, references?.short, index.short],
    [model.short, agent?.short, tokens?.short, index.short],
    [model.short, agent?.short, index.short],
    [index.short],
  ];
  for (const candidate of candidates) {
    const line = candidate.filter((part): part is string => part !== undefined).join(SEPARATOR);
    if (line.length <= columns) return line;
  }
  return truncate(index.short, Math.max(1, columns));
}

function agentsSegment(agents: readonly string[]): Segment | undefined {
  if (agents.length === 0) return undefined;
  return { full: `agents: ${agents.join(", ")}`, short: `${agents.length} agent${agents.length === 1 ? "" : "s"}` };
}

function modelSegment(info: StatusInfo): Segment {
  if (!info.model) return { full: "no model — answers from the index", short: "no model" };
  return { full: info.model.name, short: truncate(info.model.name.replace(/^claude-/, ""), 18) };
}

/** Tokens in the window of the window's size (`/status` says it too). */
export function tokenSegment(info: Pick<StatusInfo, "model" | "contextTokens">): Segment | undefined {
  if (!info.model) return undefined;
  const tokens = info.contextTokens ?? 0;
  const window = info.model.contextWindow;
  const percent = Math.round((tokens / window) * 100);
  return {
    full: `${formatCount(tokens)} tokens (${percent}% of ${compactNumber(window)})`,
    short: `ctx ${percent}%`,
  };
}

function qualitySegment(quality: StatusInfo["quality"]): Segment | undefined {
  if (!quality) return undefined;
  const value = quality.predicted.toFixed(2);
  return { full: `quality ${value}${quality.agentId ? ` (${quality.agentId})` : ""}`, short: `q ${value}` };
}

function referenceSegment(references: number): Segment | undefined {
  if (references === 0) return undefined;
  return { full: `${references} context ${references === 1 ? "ref" : "refs"}`, short: `${references} refs` };
}

function modeSegment(mode: PermissionMode): Segment | undefined {
  if (mode === "default") return undefined;
  return { full: `${mode} mode`, short: mode };
}

export function indexSegment(view: IndexView): Segment {
  const both = (text: string, short = text): Segment => ({ full: `index: ${text}`, short: `idx ${short}` });
  switch (view.state) {
    case "pending":
      return both("not started", "—");
    case "off":
      return both("off");
    case "waiting":
      return both(`waiting for pid ${view.holderPid}`, "waiting");
    case "indexing": {
      const { phase, indexed, total } = view.progress;
      if (phase === "scanning") return both("scanning…");
      if (phase === "saving") return both("saving…");
      return both(`indexing ${formatCount(indexed)}/${formatCount(total)}`, `${compactNumber(indexed)}/${compactNumber(total)}`);
    }
    case "embedding":
      return both(`embedding ${formatCount(view.embedded)}/${formatCount(view.embedded + view.remaining)}`, "embedding");
    case "refreshing":
      return both(`refreshing ${formatCount(view.files)} ${view.files === 1 ? "file" : "files"}`, `↻ ${view.files}`);
    case "fresh":
      return both("fresh");
    case "failed":
      return both("error");
  }
}
