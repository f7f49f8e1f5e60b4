import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { visible } from "../../format/visible-text.js";
import { MarkdownView } from "../markdown/markdown-view.js";
import { useTheme } from "../theme.js";
import type { NoteTone } from "../transcript.js";

/** What the user sent, marked like the prompt it came from. */
export function UserMessage({ text }: { text: string }) {
  const theme = useTheme();
  return (
    <Box marginTop={1}>
      <Marked
        mark={
          <Text color={theme.user} bold>
            {">"}
          </Text>
        }
      >
        <Text>{visible(text)}</Text>
      </Marked>
    </Box>
  );
}

/**
 * The model's text. While `live` it is the block still streaming, as plain
 * text; printed, it is drawn as markdown. A `continued` part follows the
 * answer's earlier blocks, a blank line below them and without the mark.
 * Its control characters are shown escaped, live and as markdown alike.
 */
export function AssistantMessage({ text, live = false, continued = false }: { text: string; live?: boolean; continued?: boolean }) {
  const body = live ? <Text>{visible(text)}</Text> : <MarkdownView text={text} />;
  return (
    <Box marginTop={continued ? 1 : 0}>
      <Marked mark={continued ? undefined : <Text dimColor={live}>⏺</Text>}>{body}</Marked>
    </Box>
  );
}

/**
 * Content with a mark in the two columns left of it. The mark is positioned
 * absolutely: side by side in a row, Ink wraps the text as if the mark were
 * not there and overflows narrow terminals.
 */
function Marked({ mark, children }: { mark: ReactNode; children: ReactNode }) {
  return (
    <Box paddingLeft={2}>
      {mark !== undefined && (
        <Box position="absolute" marginLeft={-2}>
          {mark}
        </Box>
      )}
      {children}
    </Box>
  );
}

/**
 * A line from Sylk itself: results of slash commands, index notices,
 * warnings. They quote paths, session titles, memory items and error
 * messages, so control characters in them are shown escaped.
 */
export function Note({ text, tone }: { text: string; tone: NoteTone }) {
  const theme = useTheme();
  const color = { info: undefined, dim: undefined, success: theme.success, warning: theme.warning, error: theme.error }[tone];
  return (
    <Text color={color} dimColor={tone === "dim"}>
      {visible(text)}
    </Text>
  );
}

export function Banner({ root, model }: { root: string; model: string }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.accent} paddingX={1}>
      <Text>
        <Text color={theme.accent} bold>
          ✻ Sylk
        </Text>{" "}
        <Text dimColor>— {visible(root, { newlines: false })}</Text>
      </Text>
      <Text dimColor>{visible(model, { newlines: false })} · /help for commands and keys · Ctrl-C twice to exit</Text>
    </Box>
  );
}
