import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import { statusText, type StatusInfo } from "../format/status-text.js";
import { useTheme } from "../theme.js";

/** One line under the prompt: model, tokens in the window, index state, permission mode. */
export function StatusLine({ info, columns }: { info: StatusInfo; columns: number }) {
  const theme = useTheme();
  // Two columns of padding, one each side. Model and agent names may come from a project's files: shown escaped.
  const text = visible(statusText(info, Math.max(10, columns - 2)), { newlines: false });
  const failed = info.index.state === "failed";
  return (
    <Box paddingX={1}>
      <Text color={failed ? theme.error : theme.muted} wrap="truncate-end">
        {text}
      </Text>
    </Box>
  );
}
