import { Box, Text, useStdout } from "ink";
import { useMemo, useState } from "react";
import type { ApprovalAnswer } from "../../agent/tools/tool-registry.js";
import { visible } from "../../format/visible-text.js";
import { shownApproval } from "../format/approval-text.js";
import type { ApprovalRequest } from "../hooks/use-agent.js";
import { useTerminalWidth } from "../hooks/use-terminal-width.js";
import { useKeys } from "../hooks/use-keys.js";
import { useTheme } from "../theme.js";
import { CommandView } from "./command-view.js";
import { DiffView, diffRowCount } from "./diff-view.js";
import { SelectList, type Choice } from "./select-list.js";

interface ApprovalDialogProps {
  request: ApprovalRequest;
  onAnswer: (answer: ApprovalAnswer) => void;
}

/**
 * Rows the dialog and the lines around it take besides the preview: its
 * border, title, reason, margins, question, choices and scroll hints, the
 * running tool's line and the status line.
 */
const CHROME_ROWS = 16;
const MIN_PREVIEW_ROWS = 4;
/** Columns the dialog takes around its text: border and padding on each side, and the `$ ` before a command. */
const DIALOG_SIDES = 4;
const COMMAND_MARK = 2;

/** Asks before a write or a command: what exactly will happen, then allow once / for the session / deny. */
export function ApprovalDialog({ request, onAnswer }: ApprovalDialogProps) {
  const theme = useTheme();
  const columns = useTerminalWidth();
  const shown = useMemo(() => shownApproval(request, columns - DIALOG_SIDES - COMMAND_MARK), [request, columns]);
  const choices: ReadonlyArray<Choice<ApprovalAnswer>> = [
    { label: "Yes", value: "allow-once", key: "y" },
    // A protected path is approved one change at a time: no "always" for it.
    ...(request.once ? [] : [{ label: `Yes, and don't ask again for ${shown.scope} this session`, value: "allow-session" as const }]),
    { label: "No, and tell Sylk what to do instead", value: "deny", key: "n" },
  ];
  // The whole dialog fits the terminal: a long diff or command scrolls inside it (PgUp/PgDn).
  const { stdout } = useStdout();
  const height = Math.max(MIN_PREVIEW_ROWS, (stdout.rows || 24) - CHROME_ROWS - shown.warnings.length - (shown.description ? 1 : 0));
  const rows = shown.command ? shown.command.rows.length : request.diff !== undefined ? diffRowCount(request.diff) : 0;
  const [offset, setOffset] = useState(0);
  useKeys((_input, key) => {
    if (key.pageDown) setOffset((current) => Math.min(current + height, Math.max(0, rows - height)));
    else if (key.pageUp) setOffset((current) => Math.max(0, current - height));
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {shown.title}
      </Text>
      {shown.reason !== "" && <Text>{shown.reason}</Text>}
      {shown.warnings.map((warning) => (
        <Text key={warning} color={theme.warning}>
          {warning}
        </Text>
      ))}
      <Box marginY={1} flexDirection="column">
        {shown.command ? (
          <>
            {shown.description !== undefined && (
              <Text dimColor wrap="truncate-end">
                {shown.description}
              </Text>
            )}
            <CommandView rows={shown.command.rows} maxLines={height} offset={offset} />
          </>
        ) : request.diff !== undefined ? (
          <DiffView diff={request.diff} maxLines={height} offset={offset} />
        ) : shown.memory ? (
          <>
            <Text>{shown.memory.what}</Text>
            <Text dimColor>{shown.memory.note}</Text>
          </>
        ) : (
          <Text dimColor>{inputText(request)}</Text>
        )}
        {rows > height && <Text dimColor>PgUp/PgDn to scroll</Text>}
      </Box>
      <Text>
        Do you want to proceed? <Text dimColor>(Esc: no)</Text>
      </Text>
      <SelectList choices={choices} onSelect={onAnswer} onCancel={() => onAnswer("deny")} />
    </Box>
  );
}

/** A change without a diff or a command: what it replaces, or the call's input as it came. */
function inputText(request: ApprovalRequest): string {
  const input = (request.input ?? {}) as Record<string, unknown>;
  if (request.tool === "write_file")
    return `Replaces a binary file at ${visible(String(input.path ?? ""), { newlines: false })} with text.`;
  return visible(JSON.stringify(request.input) ?? "", { newlines: false });
}
