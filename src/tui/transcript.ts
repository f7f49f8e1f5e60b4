import type { SlashCommandSpec } from "./commands/command-list.js";
import type { SearchResponseJson } from "../app/project-search.js";

/** A tool call as the transcript shows it: a line while it runs, then its result collapsed to one line. */
export interface ToolCallView {
  id: string;
  name: string;
  input: unknown;
  status: "running" | "done" | "error" | "denied" | "interrupted";
  /** One line: the tool's `display`, or the first line of its output. */
  result?: string;
  /** When it started (ms since the epoch), for the elapsed time while it runs. */
  startedAt?: number;
  /** The end of what a running call printed so far (a command's output), shown live. */
  tail?: string;
  /** Everything the call returned (what the model read), for the expanded view. */
  output?: string;
  /** The call's output for the user (a command's stdout and stderr): its last lines show beneath the result. */
  details?: string;
  /** How many lines the call has printed in all (so far, while it runs): `tail` and `details` keep only part of a long output. */
  printedLines?: number;
  /** A unified diff when the call changed a file. */
  diff?: string;
  /** The sub-agent the call started (`delegate`): who, what it did, what it used. */
  subagent?: SubAgentView;
}

export interface SubAgentView {
  agentId: string;
  agentType: string;
  /** Its tool calls, one line each, in order. */
  steps: Array<{ id: string; text: string; status: ToolCallView["status"] }>;
  /** Input and output tokens, once it ended. */
  tokens?: number;
}

export type NoteTone = "info" | "dim" | "warning" | "error" | "success";

/** One finished entry of the transcript; it never changes once added (Ink prints it once). */
export type TranscriptEntry =
  | { kind: "banner"; root: string; model: string }
  | { kind: "user"; text: string }
  /** `continued`: a later block of an answer whose first blocks were printed while it streamed. */
  | { kind: "assistant"; text: string; continued?: boolean }
  | { kind: "tool"; call: ToolCallView }
  | { kind: "note"; text: string; tone: NoteTone }
  | { kind: "search"; response: SearchResponseJson }
  /** /help: the commands the menu offers now (built-ins and those of its sources). */
  | { kind: "help"; commands: readonly SlashCommandSpec[] }
  /** A unified diff on its own (/diff). */
  | { kind: "diff"; diff: string };

export type TranscriptItem = TranscriptEntry & { id: number };
