import { Box, Text } from "ink";
import { visible } from "../../format/visible-text.js";
import { diffRows, type DiffRow } from "../format/diff-rows.js";
import { useTheme } from "../theme.js";

interface DiffViewProps {
  /** A unified diff (`---`/`+++` headers, `@@` hunks, +/−/space lines). */
  diff: string;
  /** Rows shown at most; the rest is counted below. */
  maxLines?: number;
  /** First row shown (a scrolled view). */
  offset?: number;
  /** Name each file (a diff of several files, as /diff shows). */
  withFiles?: boolean;
}

/**
 * A unified diff with line numbers and its context lines: additions green,
 * removals red, `+`/`-` kept so it reads without colour (NO_COLOR). The
 * lines are a file's text: control characters in them are shown escaped,
 * so a line cannot hide itself or the one before it.
 */
export function DiffView({ diff, maxLines = 60, offset = 0, withFiles = false }: DiffViewProps) {
  const theme = useTheme();
  const rows = diffRows(diff, withFiles);
  const numberWidth = String(Math.max(1, ...rows.map((row) => ("line" in row ? row.line : 0)))).length;
  const start = Math.max(0, Math.min(offset, rows.length - maxLines));
  const shown = rows.slice(start, start + maxLines);
  const below = rows.length - start - shown.length;
  return (
    <Box flexDirection="column">
      {start > 0 && <Text dimColor>… {start} lines above</Text>}
      {shown.map((row, index) => (
        <Row key={start + index} row={row} numberWidth={numberWidth} added={theme.added} removed={theme.removed} />
      ))}
      {below > 0 && <Text dimColor>… {below} more lines</Text>}
    </Box>
  );
}

function Row({
  row,
  numberWidth,
  added,
  removed,
}: {
  row: DiffRow;
  numberWidth: number;
  added: string | undefined;
  removed: string | undefined;
}) {
  if (row.kind === "gap") return <Text dimColor>{" ".repeat(numberWidth)} ⋮</Text>;
  if (row.kind === "file") return <Text bold>{visible(row.text, { newlines: false })}</Text>;
  if (row.kind === "note")
    return (
      <Text dimColor>
        {" ".repeat(numberWidth)} {visible(row.text, { newlines: false })}
      </Text>
    );
  const sign = row.kind === "added" ? "+" : row.kind === "removed" ? "-" : " ";
  const color = row.kind === "added" ? added : row.kind === "removed" ? removed : undefined;
  return (
    <Text>
      <Text dimColor>{String(row.line).padStart(numberWidth)} </Text>
      <Text color={color}>
        {sign} {visible(row.text, { newlines: false })}
      </Text>
    </Text>
  );
}

/** How many rows the diff view draws for this diff (before any cut). */
export function diffRowCount(diff: string): number {
  return diffRows(diff).length;
}
