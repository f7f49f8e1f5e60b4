import { readFileSync } from "node:fs";
import type * as z from "zod";
import type { AgentEvent } from "../agent-events.js";
import { errorMessage } from "../../errors.js";

/** What every tool call may use. Narrow on purpose: tools get services, not the world. */
export interface ToolContext {
  /** Absolute project root; tools work inside it. */
  root: string;
  signal: AbortSignal;
  /** Directories outside the root the user explicitly allowed (e.g. `--add-dir`). */
  extraDirectories: readonly string[];
  /**
   * Directories no tool reads or writes, wherever they are: Sylk's own home
   * (every project's conversations, the trust store), which a project at or
   * above the home directory holds.
   */
  hiddenDirectories?: readonly string[];
  /** Output as it is produced (a running command's stdout and stderr), for the user to watch. */
  onOutput?: (chunk: string) => void;
  /** The events of a sub-agent the call started (`delegate`, `consult_*`), as they happen. */
  onEvent?: (event: AgentEvent) => void;
  /** The model's id for this call (the parent link of what it starts). */
  toolUseId?: string;
  /**
   * What the permission policy judged and allowed for this call (its
   * `targets`), set by the registry. A tool whose targets depend on the file
   * system (write tools follow links) judges them again when it runs and
   * refuses when they changed in between.
   */
  permittedTargets?: ToolTargets;
  /** A file a write tool changed, with its bytes before (null: created) and after: the checkpoint /undo restores. */
  recordWrite?: (write: { absolute: string; shown: string; before: Buffer | null; after: Buffer | string }) => void;
}

/** A tool's answer: what the model reads, and a short line for the user. */
export interface ToolOutput {
  /** Model-facing text (the `tool_result` content). */
  output: string;
  /** User-facing one-liner (collapsed result in the TUI); defaults to the first output line. */
  display?: string;
  /** What the user may want to read in full beneath that line (a command's output); its last lines are shown. */
  details?: string;
  /** How many lines `details` had before a long output was cut to its beginning and end. */
  detailsLines?: number;
  /** The call failed; the model is told so and can correct itself. */
  isError?: boolean;
  /** Project files the call read or changed, for the content store's `related_files`. */
  relatedFiles?: string[];
  /** A unified diff when the call changed a file (shown coloured in the TUI). */
  diff?: string;
  /** What kind of mistake a failed call was, when the tool can tell (a quality signal of the handoff controller). */
  failure?: ToolFailure;
  /**
   * The call answered the prompt itself (the guide's `route_to_agent`: the
   * routed agent's answer): the run ends with this as its answer, without
   * another model call to repeat it.
   */
  endsRun?: { response: string; note: string };
}

/**
 * Failures that say something about the model rather than the world: an
 * edit whose old text is not in the file (or not once), input that does
 * not match the tool's schema, a tool that does not exist, a file that is
 * not there.
 */
export type ToolFailure = "edit_miss" | "malformed_input" | "missing_file";

/**
 * How a call is judged by the permission policy. `remember`: the call keeps
 * (or removes) something that outlives the session outside the user's files
 * (knowledge, skills), which later sessions put in front of the model: it
 * is approved like a write, never in plan mode, and one kept for every
 * project is never covered by accept-edits. `network`: the call sends a
 * request out of the machine (`web_fetch`), asked about per host. `mcp`: a
 * tool of an MCP server, whose effects Sylk cannot know: it asks by default.
 */
export type ToolKind = "read" | "write" | "execute" | "remember" | "network" | "mcp";

/** What a call touches, for permission checks. */
export interface ToolTargets {
  paths?: string[];
  command?: string;
  /** The command is to run outside the sandbox: only the user's approval of this one call allows it. */
  unsandboxed?: true;
  /** What a `remember` call keeps or removes, and where. */
  memory?: MemoryTarget;
  /** What a `network` call fetches, and from which host (empty when the URL cannot be read). */
  fetch?: {
    url: string;
    host: string;
    /** The host is this machine or a private network (`isLocalHost`): bypass mode alone does not allow it. */
    local?: true;
  };
  /** The MCP server whose tool this is: rules `mcp__<server>` and `mcp__<server>__*` cover all of its tools. */
  mcpServer?: string;
}

export interface MemoryTarget {
  /** `project`: this project's later sessions; `user`: every project of this user. */
  scope: "project" | "user";
  /** What is kept or removed, as the user should read it before approving (`rule "build": Always use pnpm.`). */
  what: string;
}

export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  /** Model-facing description, kept in a `.txt` file beside the tool. */
  description: string;
  /** One zod object: validates input at the registry's chokepoint and is the JSON schema the model sees. */
  schema: Schema;
  /**
   * The JSON schema the model sees, when it comes from elsewhere (an MCP
   * server's tool: `schema` then checks only that the input is an object,
   * and the server validates it against its own schema).
   */
  inputSchema?: Record<string, unknown>;
  kind: ToolKind;
  /**
   * Calls of this tool that follow each other in one response run at the
   * same time (`delegate`, `consult_*`: sub-agents that wait on the model,
   * not on the user's files). Every other call runs alone, in order.
   */
  concurrent?: true;
  /**
   * The call ends by itself soon after its signal aborts, having recorded
   * what it must (a sub-agent stops its own run, whose tools and model calls
   * stop on the same signal): the registry waits for its answer instead of
   * answering for it after `CANCEL_GRACE_MS`.
   */
  stopsOnAbort?: true;
  /** What the call touches, as the permission policy judges it (write tools resolve links: see `writeTarget`). */
  targets(input: z.infer<Schema>, context: ToolContext): ToolTargets;
  /**
   * What the call would change, computed without changing anything, for
   * the user to see before approving it (the real diff of an edit or an
   * overwrite). A `ToolError` means the call cannot succeed: it is answered
   * with that error and the user is not asked.
   */
  preview?(input: z.infer<Schema>, context: ToolContext): ToolPreview;
  execute(input: z.infer<Schema>, context: ToolContext): Promise<ToolOutput>;
}

export interface ToolPreview {
  /** The unified diff the call would make. */
  diff?: string;
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
  constructor(
    message: string,
    readonly failure?: ToolFailure,
  ) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * A failure beneath the tools (the project's database or the worker pool is
 * unusable) that no retry by the model can fix: it ends a scripted run with
 * exit code 54 instead of going back to the model.
 */
export class FatalToolError extends Error {
  constructor(
    readonly tool: string,
    cause: unknown,
  ) {
    super(`${tool} cannot run: ${errorMessage(cause)}`, { cause });
    this.name = "FatalToolError";
  }
}

/** SQLite I/O, corruption or a closed database; a dead worker pool. */
export function isInfrastructureFailure(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string" && /^SQLITE_(IOERR|CORRUPT|NOTADB|CANTOPEN|FULL|READONLY)/.test(code)) return true;
  const message = errorMessage(error);
  return /database connection is not open|The database connection is not open|Terminating worker thread/.test(message);
}
