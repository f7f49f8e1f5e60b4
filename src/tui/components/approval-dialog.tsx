import { Box, Text } from "ink";
import type { ApprovalAnswer } from "../../agent/tools/tool-registry.js";
import type { ApprovalRequest } from "../hooks/use-agent.js";
import { useTheme } from "../theme.js";
import { DiffView } from "./diff-view.js";
import { SelectList, type Choice } from "./select-list.js";

interface ApprovalDialogProps {
  request: ApprovalRequest;
  onAnswer: (answer: ApprovalAnswer) => void;
}

const PREVIEW_LINES = 20;

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
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.warning} paddingX={1}>
      <Text bold color={theme.warning}>
        {title(request)}
      </Text>
      <Text>{request.reason}</Text>
      <Box marginY={1} flexDirection="column">
        <Preview request={request} />
      </Box>
      <Text>
        Do you want to proceed? <Text dimColor>(Esc: no)</Text>
      </Text>
      <SelectList choices={choices} onSelect={onAnswer} onCancel={() => onAnswer("deny")} />
    </Box>
  );
}

function title(request: ApprovalRequest): string {
  if (request.kind === "execute") return "Run a command?";
  if (request.once) return "Change a protected file?";
  return request.tool === "write_file" ? "Write a file?" : "Edit a file?";
}

/** The change itself: the command, the replaced text as a diff, or the start of a new file. */
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
  if (typeof input.old_string === "string" && typeof input.new_string === "string") {
    const lines = [
      `@@ ${String(input.path ?? "")} @@`,
      ...prefixed(input.old_string, "-"),
      ...prefixed(input.new_string, "+"),
    ];
    return <DiffView diff={lines.join("\n")} maxLines={PREVIEW_LINES * 2} />;
  }
  if (typeof input.content === "string") {
    return <DiffView diff={[`@@ ${String(input.path ?? "")} (new content) @@`, ...prefixed(input.content, "+")].join("\n")} maxLines={PREVIEW_LINES} />;
  }
  return <Text dimColor>{JSON.stringify(request.input)}</Text>;
}

function prefixed(text: string, sign: string): string[] {
  return text.replace(/\n$/, "").split("\n").map((line) => `${sign}${line}`);
}
