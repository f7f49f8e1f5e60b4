import { Box, Text, useInput, useStdout } from "ink";
import { useState } from "react";
import type { ApprovalAnswer } from "../../agent/tools/tool-registry.js";
import type { ApprovalRequest } from "../hooks/use-agent.js";
import { useTheme } from "../theme.js";
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

/** Asks before a write or a command: what exactly will happen, then allow once / for the session / deny. */
export function ApprovalDialog({ request, onAnswer }: ApprovalDialogProps) {
  const theme = useTheme();
  const command = request.targets.command;
  const scope = command !== undefined ? `\`${command}\`` : `${request.tool} calls`;
  const choices: ReadonlyArray<Choice<ApprovalAnswer>> = [
    { label: "Yes", value: "allow-once", key: "y" },
    // A protected path is approved one change at a time: no "always" for it.
    ...(request.once ? [] : [{ label: `Yes, and don't ask again for ${scope} this session`, value: "allow-session" as const }]),
    { label: "No, and tell Sylk what to do instead", value: "deny", key: "n" },
  ];
  // The whole dialog fits the terminal: a long diff scrolls inside it (PgUp/PgDn).
  const { stdout } = useStdout();
  const height = Math.max(MIN_PREVIEW_ROWS, (stdout.rows || 24) - CHROME_ROWS);
  const rows = request.diff !== undefined ? diffRowCount(request.diff) : 0;
  const [offset, setOffset] = useState(0);
  useInput((_input, key) => {
    if (key.pageDown) setOffset((current) => Math.min(current + height, Math.max(0, rows - height)));
    else if (key.pageUp) setOffset((current) => Math.max(0, current - height));
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {title(request)}
      </Text>
      <Text>{request.reason}</Text>
      <Box marginY={1} flexDirection="column">
        {request.diff !== undefined ? (
          <>
            <DiffView diff={request.diff} maxLines={height} offset={offset} />
            {rows > height && <Text dimColor>PgUp/PgDn to scroll</Text>}
          </>
        ) : (
          <Preview request={request} />
        )}
      </Box>
      <Text>
        Do you want to proceed? <Text dimColor>(Esc: no)</Text>
      </Text>
      <SelectList choices={choices} onSelect={onAnswer} onCancel={() => onAnswer("deny")} />
    </Box>
  );
}

function title(request: ApprovalRequest): string {
  // A sub-agent's question names it: several may work at once.
  const who = request.agentId ? `${request.agentId}: ` : "";
  if (request.targets.unsandboxed) return `${who}Run a command outside the sandbox?`;
  if (request.kind === "execute") return `${who}Run a command?`;
  if (request.once) return `${who}Change a protected file?`;
  return `${who}${request.tool === "write_file" ? "Write a file?" : "Edit a file?"}`;
}

/** A change without a diff: the command and what it is for, or the call's input as it came. */
function Preview({ request }: { request: ApprovalRequest }) {
  const input = (request.input ?? {}) as Record<string, unknown>;
  if (request.targets.command !== undefined) {
    return (
      <>
        <Text bold>$ {request.targets.command}</Text>
        {typeof input.description === "string" && <Text dimColor>{input.description}</Text>}
      </>
    );
  }
  if (request.tool === "write_file") return <Text dimColor>Replaces a binary file at {String(input.path ?? "")} with text.</Text>;
  return <Text dimColor>{JSON.stringify(request.input)}</Text>;
}
