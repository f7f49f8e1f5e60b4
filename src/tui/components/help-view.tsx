import { Box, Text } from "ink";
import { HELP_KEYS, SLASH_COMMANDS } from "../commands/command-list.js";

/** /help: commands and keys in two columns; a long description wraps under itself, not under the key. */
export function HelpView() {
  const width = Math.max(...SLASH_COMMANDS.map((command) => command.usage.length), ...HELP_KEYS.map(([key]) => key.length)) + 4;
  return (
    <Box flexDirection="column">
      <Text bold>Commands</Text>
      {SLASH_COMMANDS.map((command) => (
        <Row key={command.name} left={command.usage} right={command.description} width={width} />
      ))}
      <Box marginTop={1}>
        <Text bold>Keys</Text>
      </Box>
      {HELP_KEYS.map(([key, meaning]) => (
        <Row key={key} left={key} right={meaning} width={width} />
      ))}
    </Box>
  );
}

function Row({ left, right, width }: { left: string; right: string; width: number }) {
  return (
    <Box>
      <Box width={width} flexShrink={0} paddingLeft={2}>
        <Text>{left}</Text>
      </Box>
      <Box flexShrink={1}>
        <Text>{right}</Text>
      </Box>
    </Box>
  );
}
