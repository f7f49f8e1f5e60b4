import { Box, Text } from "ink";

interface CommandViewProps {
  /** The command's rows (`commandRows`): escaped, cut to the dialog's width. */
  rows: readonly string[];
  /** Rows shown at most; the rest is counted below. */
  maxLines: number;
  /** First row shown (a scrolled view). */
  offset: number;
}

/**
 * A command in the approval dialog, `$ ` before its first row: one Ink line
 * per row, paged like the diff view, so a command of any length keeps its
 * beginning on the screen and says how much more there is.
 */
export function CommandView({ rows, maxLines, offset }: CommandViewProps) {
  const start = Math.max(0, Math.min(offset, rows.length - maxLines));
  const shown = rows.slice(start, start + maxLines);
  const below = rows.length - start - shown.length;
  return (
    <Box flexDirection="column">
      {start > 0 && <Text dimColor>… {start} lines above</Text>}
      {shown.map((row, index) => (
        <Text key={start + index} bold>
          {start + index === 0 ? "$ " : "  "}
          {row}
        </Text>
      ))}
      {below > 0 && <Text dimColor>… {below} more lines</Text>}
    </Box>
  );
}
