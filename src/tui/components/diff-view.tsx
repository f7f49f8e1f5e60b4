import { Box, Text } from "ink";
import { useTheme } from "../theme.js";

interface DiffViewProps {
  /** A unified diff (`---`/`+++` headers, `@@` hunks, +/−/space lines). */
  diff: string;
  maxLines?: number;
}

/** A unified diff, additions green and removals red (plain +/− with NO_COLOR); long diffs are cut. */
export function DiffView({ diff, maxLines = 60 }: DiffViewProps) {
  const theme = useTheme();
  const all = diff.replace(/\n$/, "").split("\n");
  // The file header (`Index:`, `===`, `---`, `+++`) says nothing the tool line does not; hunks start at the first @@.
  const firstHunk = all.findIndex((line) => line.startsWith("@@"));
  const lines = firstHunk === -1 ? all : all.slice(firstHunk);
  const shown = lines.slice(0, maxLines);
  return (
    <Box flexDirection="column">
      {shown.map((line, index) => {
        if (line.startsWith("@@")) {
          return (
            <Text key={index} color={theme.accent} dimColor>
              {line}
            </Text>
          );
        }
        const color = line.startsWith("+") ? theme.added : line.startsWith("-") ? theme.removed : undefined;
        return (
          <Text key={index} color={color}>
            {line || " "}
          </Text>
        );
      })}
      {lines.length > shown.length && <Text dimColor>… {lines.length - shown.length} more lines</Text>}
    </Box>
  );
}
