import { Box, Text } from "ink";
import { HELP_KEYS, type SlashCommandSpec } from "../commands/command-list.js";
import { wrapWords } from "../format/text.js";
import { useTerminalWidth } from "../hooks/use-terminal-width.js";

/** Columns the transcript keeps on each side of an entry. */
const SIDES = 2;

/**
 * /help: commands and keys in two columns; a long description wraps under
 * itself, not under the key. The first column takes at most two fifths of
 * the terminal (a longer command wraps in it).
 */
export function HelpView({ commands }: { commands: readonly SlashCommandSpec[] }) {
  const columns = useTerminalWidth();
  const widest = Math.max(...commands.map((command) => command.usage.length), ...HELP_KEYS.map(([key]) => key.length)) + 4;
  const width = Math.min(widest, Math.floor((columns * 2) / 5));
  return (
    <Box flexDirection="column">
      <Text bold>Commands</Text>
      {commands.map((command) => (
        <Row key={command.name} left={command.usage} right={command.description} width={width} columns={columns} />
      ))}
      <Box marginTop={1}>
        <Text bold>Keys</Text>
      </Box>
      {HELP_KEYS.map(([key, meaning]) => (
        <Row key={key} left={key} right={meaning} width={width} columns={columns} />
      ))}
    </Box>
  );
}

function Row({ left, right, width, columns }: { left: string; right: string; width: number; columns: number }) {
  return (
    <Box>
      <Box width={width} flexShrink={0} paddingLeft={2}>
        <Text>{left}</Text>
      </Box>
      <Box flexDirection="column">
        {wrapWords(right, Math.max(10, columns - width - SIDES)).map((line, index) => (
          <Text key={index}>{line}</Text>
        ))}
      </Box>
    </Box>
  );
}
