import { visible } from "../format/visible-text.js";

// Made on first use: setting up ICU's number formatting took ~10 ms of every command's start-up.
let integer: Intl.NumberFormat | undefined;

export function formatCount(value: number): string {
  integer ??= new Intl.NumberFormat("en-US");
  return integer.format(Math.round(value));
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

/** `[████████░░] 80%` */
export function progressBar(done: number, total: number, width = 20): string {
  const ratio = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(ratio * width);
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.floor(ratio * 100)}%`;
}

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
export function sessionLine(session: {
  id: string;
  updatedAt: number;
  model: string;
  turns: number;
  title: string;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number };
}, chain: readonly string[] = []): string {
  const tokens = formatCount(session.usage.inputTokens + session.usage.outputTokens + session.usage.cacheReadTokens);
  // A chain of more than one instance: the handoffs, and the instance --continue goes on with.
  const handoffs = chain.length > 1 ? `  ${chain.length - 1} ${chain.length === 2 ? "handoff" : "handoffs"}: ${chain.map(field).join(" → ")}` : "";
  return `${session.id.slice(0, 8)}  ${formatLocalTime(session.updatedAt)}  ${field(session.model)}  ${session.turns} turns, ${tokens} tokens${handoffs}  ${field(session.title)}`;
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
  return `          ↳ ${field(child.agentId ?? child.agentType ?? "agent")} (${child.kind})  ${child.turns} turns, ${tokens} tokens  ${field(child.title)}`;
}

/** A pipeline under its root session in `sylk sessions`: its status and each stage with how it ended. */
export function pipelineLine(pipeline: {
  status: string;
  stopReason: string | null;
  stages: ReadonlyArray<{ stage: string; round: number; status: string }>;
}): string {
  const mark = (status: string) => (status === "done" ? "✓" : status === "running" ? "…" : status === "no_structure" ? "∅" : "✗");
  const stages = pipeline.stages.map((stage) => `${field(stage.stage)}${stage.round > 0 ? stage.round : ""} ${mark(stage.status)}`).join(" → ");
  return `          ▸ pipeline ${pipeline.status}${pipeline.stopReason ? ` (${field(pipeline.stopReason)})` : ""}: ${stages}`;
}
