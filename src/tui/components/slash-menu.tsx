import { Box, Text } from "ink";
import type { SlashCommandSpec } from "../commands/command-list.js";

/** Commands the menu shows at once: it must leave the transcript, the prompt and the status line room on a 24-row terminal. */
const MENU_ROWS = 6;
/** The command column at most; a longer usage is cut there, its description keeps the rest of the line. */
const MAX_USAGE_COLUMNS = 24;

/** The rows of a list of `count` shown at once, moved only as far as keeps `selected` in view. */
function menuWindow(count: number, selected: number | undefined, rows = MENU_ROWS): { start: number; end: number } {
  const start = selected === undefined ? 0 : Math.min(Math.max(0, selected - rows + 1), Math.max(0, count - rows));
  return { start, end: Math.min(count, start + rows) };
}

/**
 * The slash commands matching what was typed: a few at a time, one line
 * each (a description is cut at the edge), scrolled by Tab, which selects
 * the next.
 */
export function SlashMenu({
  commands,
  selected,
  accent,
}: {
  commands: SlashCommandSpec[];
  selected: string | undefined;
  accent: string | undefined;
}) {
  const index = commands.findIndex((command) => command.name === selected);
  const { start, end } = menuWindow(commands.length, index === -1 ? undefined : index);
  const shown = commands.slice(start, end);
  const usageColumns = Math.min(MAX_USAGE_COLUMNS, Math.max(...shown.map((command) => command.usage.length))) + 2;
  const above = start;
  const below = commands.length - end;
  return (
    <Box flexDirection="column" paddingX={2}>
      {shown.map((command) => {
        const style = command.name === selected ? { color: accent } : { dimColor: true };
        return (
          <Box key={command.name}>
            <Box width={usageColumns} flexShrink={0}>
              <Text {...style} wrap="truncate-end">
                {command.usage}
              </Text>
            </Box>
            <Box flexShrink={1}>
              <Text {...style} wrap="truncate-end">
                {command.description}
              </Text>
            </Box>
          </Box>
        );
      })}
      {(above > 0 || below > 0) && (
        <Text dimColor>
          {[above > 0 ? `↑ ${above} more` : "", below > 0 ? `↓ ${below} more` : ""].filter(Boolean).join(" · ")} · Tab for the next
        </Text>
      )}
    </Box>
  );
}
