import { visible } from "../../format/visible-text.js";

/** Small text helpers shared by the components. */

export function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return truncate(line.trimEnd(), max);
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/** `read_file(src/a.ts)`: the argument a user recognises a call by, on one line, control characters shown escaped. */
export function summariseInput(input: unknown, max = 80): string {
  if (typeof input !== "object" || input === null) return "";
  const record = input as Record<string, unknown>;
  const primary = record.path ?? record.command ?? record.pattern ?? record.query;
  // Escaped before it is cut, so the cut counts what is drawn.
  return truncate(visible(typeof primary === "string" ? primary : JSON.stringify(input), { newlines: false, tabs: "escape" }), max);
}

/** 12,345 → "12.3k"; 1,234,567 → "1.2M". */
export function compactNumber(value: number): string {
  if (value < 1_000) return String(Math.round(value));
  if (value < 1_000_000) return `${trimZero((value / 1_000).toFixed(value < 10_000 ? 1 : 0))}k`;
  return `${trimZero((value / 1_000_000).toFixed(1))}M`;
}

function trimZero(text: string): string {
  return text.replace(/\.0$/, "");
}

/** Seconds as a running timer shows them: `7s`, `2m 05s`, `1h 02m`. */
export function formatElapsed(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}
