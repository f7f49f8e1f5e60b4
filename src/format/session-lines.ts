import { visible } from "./visible-text.js";
import { formatCount } from "./numbers.js";

/**
 * A moment as the user's clock shows it, with the zone it is in:
 * `2026-11-25 15:48 +05:30`, or `… UTC` where the clock is on UTC. Sessions
 * were listed in UTC with no zone, an hour or more away from what users saw.
 */
export function formatLocalTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  const offset = -date.getTimezoneOffset();
  const zone = offset === 0 ? "UTC" : `${offset > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())} ${zone}`;
}

/** A field of a listed line (a title, a model, an agent): on one line, control characters shown escaped. */
function field(text: string): string {
  return visible(text, { newlines: false, tabs: "escape" });
}

/** One session as `sylk sessions` and `/sessions` list it. */
export function sessionLine(
  session: {
    id: string;
    updatedAt: number;
    model: string;
    prompts: number;
    title: string;
    usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number };
  },
  chain: readonly string[] = [],
): string {
  const tokens = formatCount(session.usage.inputTokens + session.usage.outputTokens + session.usage.cacheReadTokens);
  // A chain of more than one instance: the handoffs, and the instance --continue goes on with.
  const handoffs =
    chain.length > 1 ? `  ${chain.length - 1} ${chain.length === 2 ? "handoff" : "handoffs"}: ${chain.map(field).join(" → ")}` : "";
  return `${session.id.slice(0, 8)}  ${formatLocalTime(session.updatedAt)}  ${field(session.model)}  ${plural(session.prompts, "prompt")}, ${tokens} tokens${handoffs}  ${field(session.title)}`;
}

/** A sub-agent's run under its root session in `sylk sessions`. */
export function subAgentLine(child: {
  agentId: string | null;
  agentType: string | null;
  kind: string;
  turns: number;
  title: string;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number };
}): string {
  const tokens = formatCount(child.usage.inputTokens + child.usage.outputTokens + child.usage.cacheReadTokens);
  return `          ↳ ${field(child.agentId ?? child.agentType ?? "agent")} (${child.kind})  ${plural(child.turns, "model call")}, ${tokens} tokens  ${field(child.title)}`;
}

/** A pipeline under its root session in `sylk sessions`: its status and each stage with how it ended. */
export function pipelineLine(pipeline: {
  status: string;
  stopReason: string | null;
  stages: ReadonlyArray<{ stage: string; round: number; status: string }>;
}): string {
  const mark = (status: string) => (status === "done" ? "✓" : status === "running" ? "…" : status === "no_structure" ? "∅" : "✗");
  const stages = pipeline.stages
    .map((stage) => `${field(stage.stage)}${stage.round > 0 ? stage.round : ""} ${mark(stage.status)}`)
    .join(" → ");
  return `          ▸ pipeline ${pipeline.status}${pipeline.stopReason ? ` (${field(pipeline.stopReason)})` : ""}: ${stages}`;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? "" : "s"}`;
}
