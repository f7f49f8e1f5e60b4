import type { ApprovalRequest } from "../../agent/tools/tool-registry.js";
import { visible, visibleText } from "../../format/visible-text.js";
import { commandRows, type CommandRows } from "./command-rows.js";

/** What the approval dialog shows of a request, every part made safe to draw. */
export interface ShownApproval {
  title: string;
  /** Why it asks, on one line. */
  reason: string;
  /** The command of a `run_command` call, in rows. */
  command?: CommandRows;
  /** What the model says the command is for, on one line. */
  description?: string;
  /** Said above the preview: control characters shown escaped, a command of several lines. */
  warnings: string[];
  /** What a `remember` call would keep (or remove), and what that means for the user. */
  memory?: { what: string; note: string };
  /** What a "don't ask again" answer covers. */
  scope: string;
}

const KEPT_FOR_EVERY_PROJECT =
  "Kept in your own knowledge ($SYLK_HOME): the agent is shown it in every project, until you remove it (sylk memory rm).";
const KEPT_FOR_THIS_PROJECT =
  "Kept with this project's data: the agent is shown it in this project's later sessions, until removed (sylk memory rm).";
const ESCAPES_NAMED = "\\e is ESC, \\r a carriage return";

/**
 * The request as the dialog draws it, for a dialog whose text is `width`
 * columns wide. A command, a path or a diff holding characters a terminal
 * would act on is flagged, so the user knows that `\e` on the screen is an
 * escape character in the command, not a backslash and an e.
 */
export function shownApproval(request: ApprovalRequest, width: number): ShownApproval {
  const reason = visibleText(request.reason, { newlines: false });
  const command = request.targets.command;
  const input = (request.input ?? {}) as Record<string, unknown>;
  if (command !== undefined) {
    const rows = commandRows(command, width);
    const warnings = [
      ...(rows.escaped ? [`⚠ This command contains control characters, shown escaped (${ESCAPES_NAMED}).`] : []),
      ...(rows.lines > 1 ? [`⚠ This command has ${rows.lines} lines: read them all before you answer.`] : []),
    ];
    return {
      title: title(request),
      reason: visible(commandReason(request.reason, command), { newlines: false }),
      command: rows,
      ...(typeof input.description === "string" ? { description: visible(input.description, { newlines: false }) } : {}),
      warnings,
      // The command is shown whole just above the choices.
      scope: "this command",
    };
  }
  const memory = request.targets.memory;
  if (memory) {
    // What would be kept comes from the model, and perhaps from a file it read.
    const what = visibleText(memory.what, { newlines: false });
    return {
      title: title(request),
      reason: reason.text,
      memory: { what: what.text, note: memory.scope === "user" ? KEPT_FOR_EVERY_PROJECT : KEPT_FOR_THIS_PROJECT },
      warnings:
        reason.escaped || what.escaped ? [`⚠ What would be kept contains control characters, shown escaped (${ESCAPES_NAMED}).`] : [],
      scope: `${visible(request.tool, { newlines: false })} ${whereKept(memory.scope)}`,
    };
  }
  if (request.kind === "mcp") return mcpApproval(request, reason);
  const fetch = request.targets.fetch;
  if (fetch) {
    // The URL is the model's, perhaps from a page it read.
    const url = visibleText(fetch.url, { newlines: false });
    return {
      title: title(request),
      reason: reason.text,
      warnings: url.escaped || reason.escaped ? [`⚠ This URL contains control characters, shown escaped (${ESCAPES_NAMED}).`] : [],
      scope: `${visible(request.tool, { newlines: false })} from ${visible(fetch.host, { newlines: false })}`,
    };
  }
  const paths = (request.targets.paths ?? []).map((path) => visibleText(path, { newlines: false }));
  const escaped = reason.escaped || paths.some((path) => path.escaped) || (request.diff !== undefined && visibleText(request.diff).escaped);
  return {
    title: title(request),
    reason: createsFile(request) ? `Create ${paths.map((path) => path.text).join(", ")}` : reason.text,
    warnings: escaped ? [`⚠ This change contains control characters, shown escaped (${ESCAPES_NAMED}).`] : [],
    scope: `${visible(request.tool, { newlines: false })} calls`,
  };
}

/**
 * Why a command is asked about, without the command itself, which the
 * dialog shows whole below (the policy's reason starts by restating it):
 * empty when that is all the reason says.
 */
function commandReason(reason: string, command: string): string {
  const restated = `Run a command: ${command}`;
  if (!reason.startsWith(restated)) return reason;
  const why = reason
    .slice(restated.length)
    .trim()
    .replace(/^\((.*)\)$/s, "$1");
  return why ? `${why[0]?.toUpperCase()}${why.slice(1)}.` : "";
}

/** Characters of an MCP call's arguments the dialog shows; the rest is counted. */
const MCP_INPUT_CHARACTERS = 600;

/** An MCP tool's call: what it sends the server is what the user judges, so its arguments are shown. */
function mcpApproval(request: ApprovalRequest, reason: ReturnType<typeof visibleText>): ShownApproval {
  const input = visibleText(JSON.stringify(request.input ?? {}), { newlines: false });
  const cut = input.text.length > MCP_INPUT_CHARACTERS;
  return {
    title: title(request),
    reason: reason.text,
    description: cut
      ? `${input.text.slice(0, MCP_INPUT_CHARACTERS)}… (${input.text.length - MCP_INPUT_CHARACTERS} more characters)`
      : input.text,
    warnings: reason.escaped || input.escaped ? [`⚠ This call contains control characters, shown escaped (${ESCAPES_NAMED}).`] : [],
    scope: request.once ? "this call" : `${visible(request.tool, { newlines: false })} calls`,
  };
}

/** A write that makes a new file: its diff starts from nothing. */
function createsFile(request: ApprovalRequest): boolean {
  return request.kind === "write" && !request.once && request.diff?.startsWith("--- /dev/null") === true;
}

function title(request: ApprovalRequest): string {
  // A sub-agent's question names it: several may work at once.
  const who = request.agentId ? `${visible(request.agentId, { newlines: false })}: ` : "";
  if (request.targets.unsandboxed) return `${who}Run a command outside the sandbox?`;
  if (request.kind === "execute") return `${who}Run a command?`;
  if (request.kind === "remember") return `${who}${rememberQuestion(request)}`;
  if (request.kind === "network") return `${who}Fetch a web page?`;
  if (request.kind === "mcp") return `${who}Use an MCP server's tool?`;
  if (request.once) return `${who}Change a protected file?`;
  return `${who}${request.tool === "write_file" ? "Write a file?" : "Edit a file?"}`;
}

function rememberQuestion(request: ApprovalRequest): string {
  const where = whereKept(request.targets.memory?.scope ?? "user");
  if (request.tool === "save_knowledge") return `Remember this ${where}?`;
  if (request.tool === "delete_knowledge") return `Forget this ${where}?`;
  if (request.tool === "create_skill") return "Keep this skill for this project?";
  return `Keep this ${where}?`;
}

function whereKept(scope: "project" | "user"): string {
  return scope === "user" ? "for every project" : "for this project";
}
