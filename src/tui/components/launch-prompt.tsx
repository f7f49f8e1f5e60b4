import { Box, Text } from "ink";
import { useMemo, useState } from "react";
import type { PromptEntry, PromptHistory } from "../../app/prompt-history.js";
import { SlashCommandMenu } from "../commands/command-list.js";
import { useFlash } from "../hooks/use-flash.js";
import { useInterruptKeys } from "../hooks/use-interrupt-keys.js";
import type { PromptEditor } from "../hooks/use-prompt-editor.js";
import { usePromptEditor } from "../hooks/use-prompt-editor.js";
import { useTerminalWidth } from "../hooks/use-terminal-width.js";
import { useTheme } from "../theme.js";
import { PromptInput } from "./prompt-input.js";
import { QueuedPrompts } from "./queued-prompts.js";

/** What the launch frame's prompt was given, kept where the session's screen can take it over. */
export interface LaunchTyping {
  /** The editor, once drawn: the session's prompt starts from its state. */
  editor: PromptEditor | undefined;
  /** Lines sent with Enter, in order, for the session to send once it is open. */
  readonly sent: string[];
  /** The prompts to add to the project's history: the launch frame has none to read or write. */
  readonly history: PromptEntry[];
}

/** A history that keeps what is added for the session to store: before the project opens there is no file to read. */
function historyKeptFor(typing: LaunchTyping): PromptHistory {
  return {
    load: () => [],
    add(entry) {
      typing.history.push(entry);
      return undefined;
    },
  };
}

interface LaunchPromptProps {
  typing: LaunchTyping;
  /** Ctrl-D on an empty prompt, or Ctrl-C twice. */
  onLeave: () => void;
}

/**
 * The prompt drawn before the session opens (the launch frame): the real
 * prompt, with its keys, so what is typed as the screen appears is kept
 * and echoed. It holds no session: Enter queues the line, sent once the
 * session is open, and the slash menu lists the built-in commands only.
 */
export function LaunchPrompt({ typing, onLeave }: LaunchPromptProps) {
  const theme = useTheme();
  const columns = useTerminalWidth();
  const history = useMemo(() => historyKeptFor(typing), [typing]);
  const editor = usePromptEditor(history, () => undefined);
  typing.editor = editor;
  const commands = useMemo(() => new SlashCommandMenu(), []);
  const [sent, setSent] = useState<readonly string[]>([]);
  const [hint, flash, dismissHint] = useFlash();
  useInterruptKeys({
    cancelTurn: () => false,
    clearPrompt: editor.clear,
    cancelSearch: editor.cancelSearch,
    exit: onLeave,
    hint: flash,
    dismissHint,
    dialogOpen: false,
    blocking: false,
    toggleTranscript: () => undefined,
    cyclePermissionMode: () => undefined,
  });
  return (
    <Box flexDirection="column" width={columns}>
      <PromptInput
        editor={editor}
        onSubmit={(text) => {
          typing.sent.push(text);
          setSent([...typing.sent]);
        }}
        commands={commands}
        onExit={onLeave}
        placeholder="Ask anything · /help for commands"
      />
      <QueuedPrompts prompts={sent} />
      <Box paddingX={1}>
        <Text dimColor>opening the project…</Text>
      </Box>
      {hint && (
        <Box paddingX={1}>
          <Text color={theme.warning}>{hint}</Text>
        </Box>
      )}
    </Box>
  );
}
