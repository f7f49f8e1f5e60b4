import type { ApprovalRequest } from "../../agent/tools/tool-registry.js";
import { visible, visibleText } from "../../format/visible-text.js";
import { commandRows, type CommandRows } from "./command-rows.js";
import { truncate } from "./text.js";

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
  /** What a "don't ask again" answer covers. */
  scope: string;
}

const SCOPE_CHARACTERS = 60;
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
      reason: reason.text,
      command: rows,
      ...(typeof input.description === "string" ? { description: visible(input.description, { newlines: false }) } : {}),
      warnings,
      scope: `\`${truncate(visible(command, { newlines: false, tabs: "escape" }), SCOPE_CHARACTERS)}\``,
    };
  }
  const paths = (request.targets.paths ?? []).map((path) => visibleText(path, { newlines: false }));
  const escaped = reason.escaped || paths.some((path) => path.escaped) || (request.diff !== undefined && visibleText(request.diff).escaped);
  return {
    title: title(request),
    reason: reason.text,
    warnings: escaped ? [`⚠ This change contains control characters, shown escaped (${ESCAPES_NAMED}).`] : [],
    scope: `${visible(request.tool, { newlines: false })} calls`,
  };
}

function title(request: ApprovalRequest): string {
  // A sub-agent's question names it: several may work at once.
  const who = request.agentId ? `${visible(request.agentId, { newlines: false })}: ` : "";
  if (request.kind === "execute") return `${who}Run a command?`;
  if (request.once) return `${who}Change a protected file?`;
  return `${who}${request.tool === "write_file" ? "Write a file?" : "Edit a file?"}`;
}
