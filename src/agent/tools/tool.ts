import { readFileSync } from "node:fs";
import type { z } from "zod";

/** What every tool call may use. Narrow on purpose: tools get services, not the world. */
export interface ToolContext {
  /** Absolute project root; tools work inside it. */
  root: string;
  signal: AbortSignal;
  /** Directories outside the root the user explicitly allowed (e.g. `--add-dir`). */
  extraDirectories: readonly string[];
}

/** A tool's answer: what the model reads, and a short line for the user. */
export interface ToolOutput {
  /** Model-facing text (the `tool_result` content). */
  output: string;
  /** User-facing one-liner (collapsed result in the TUI); defaults to the first output line. */
  display?: string;
  /** The call failed; the model is told so and can correct itself. */
  isError?: boolean;
  /** Project files the call read or changed, for the content store's `related_files`. */
  relatedFiles?: string[];
  /** A unified diff when the call changed a file (shown coloured in the TUI). */
  diff?: string;
}

/** How a call is judged by the permission policy. */
export type ToolKind = "read" | "write" | "execute";

/** What a call touches, for permission checks. */
export interface ToolTargets {
  paths?: string[];
  command?: string;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  /** Model-facing description, kept in a `.txt` file beside the tool. */
  description: string;
  /** One zod object: validates input at the registry's chokepoint and is the JSON schema the model sees. */
  schema: Schema;
  kind: ToolKind;
  targets(input: z.infer<Schema>): ToolTargets;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput>;
}

export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  return definition;
}

/** Reads a tool's description file (`read-file.txt` beside `read-file.ts`). */
export function toolDescription(moduleUrl: string, fileName: string): string {
  return readFileSync(new URL(fileName, moduleUrl), "utf8").trim();
}

/** Thrown by a tool for an expected failure whose message the model should read as is. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}
