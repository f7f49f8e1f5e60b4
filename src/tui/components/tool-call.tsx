import { Box, Text } from "ink";
import { summariseInput } from "../format/text.js";
import { useTheme, type Theme } from "../theme.js";
import type { ToolCallView } from "../transcript.js";
import { DiffView } from "./diff-view.js";

/** `⏺ read_file(src/a.ts)` and, once it returned, its result on one line (`⎿ …`) and any diff. */
export function ToolCall({ call, awaitingApproval = false }: { call: ToolCallView; awaitingApproval?: boolean }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={markerColor(call.status, theme)}>⏺ </Text>
        <Text bold>{call.name}</Text>({summariseInput(call.input)})
      </Text>
      <Box marginLeft={2}>
        <Text color={resultColor(call.status, theme)} dimColor={call.status === "running"} wrap="truncate-end">
          ⎿ {awaitingApproval ? "waiting for your answer…" : resultText(call)}
        </Text>
      </Box>
      {call.diff && (
        <Box marginLeft={4}>
          <DiffView diff={call.diff} />
        </Box>
      )}
    </Box>
  );
}

function resultText(call: ToolCallView): string {
  switch (call.status) {
    case "running":
      return "running…";
    case "denied":
      return `denied: ${call.result ?? ""}`;
    case "error":
      return `✗ ${call.result ?? ""}`;
    default:
      return call.result ?? "";
  }
}

function markerColor(status: ToolCallView["status"], theme: Theme): string | undefined {
  if (status === "done") return theme.success;
  if (status === "running") return theme.muted;
  return status === "error" ? theme.error : theme.warning;
}

function resultColor(status: ToolCallView["status"], theme: Theme): string | undefined {
  if (status === "error") return theme.error;
  if (status === "denied" || status === "interrupted") return theme.warning;
  return undefined;
}
