import { Box, Text, useInput, type Key } from "ink";
import { useRef } from "react";
import { matchingCommands } from "../commands/command-list.js";
import type { PromptEditor } from "../hooks/use-prompt-editor.js";
import { InputHistory } from "../input/input-history.js";
import * as edit from "../input/line-editor.js";
import { useTheme } from "../theme.js";

interface PromptInputProps {
  editor: PromptEditor;
  onSubmit: (text: string) => void;
  /** Ctrl-D on an empty prompt. */
  onExit: () => void;
  placeholder: string;
}

/** Bracketed paste markers, as Ink hands them over once it has stripped the escape. */
const PASTE_START = "[200~";
const PASTE_END = "[201~";

/**
 * The prompt. Enter sends; a trailing "\" + Enter, Alt+Enter, Ctrl+J, or
 * Shift+Enter (terminals with the kitty keyboard protocol) insert a line
 * break; pasted text keeps its line breaks (bracketed paste, or one chunk).
 */
export function PromptInput({ editor, onSubmit, onExit, placeholder }: PromptInputProps) {
  const theme = useTheme();
  const history = useRef(new InputHistory()).current;
  const pasting = useRef(false);

  useInput((input, key) => {
    if (input === PASTE_START || input === PASTE_END) {
      pasting.current = input === PASTE_START;
      return;
    }
    const enter = (state: edit.EditorState, newline: boolean) => {
      if (newline) return editor.update(edit.insert(state, "\n"));
      if (edit.endsWithContinuation(state)) return editor.update(edit.replaceContinuationWithNewline(state));
      if (!state.text.trim()) return editor.update(state);
      history.push(state.text);
      editor.clear();
      onSubmit(state.text);
    };
    const state = editor.state;
    if (key.return) return enter(state, pasting.current || key.shift || key.meta);
    // Text and Enter read in one chunk (fast typing, tmux send-keys, a paste without bracketed-paste
    // support): line breaks inside stay in the prompt, a final one sends it.
    if (!pasting.current && input.length > 1 && input.endsWith("\r") && !key.ctrl && !key.meta) {
      return enter(edit.insert(state, input.slice(0, -1)), false);
    }
    const next = applyKey(state, input, key, history);
    if (next === "exit") {
      if (!state.text) onExit();
      return;
    }
    if (next) editor.update(next);
  });

  const { text, cursor } = editor.state;
  const suggestions = matchingCommands(text);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={theme.muted} paddingX={1} flexDirection="column">
        {text === "" ? (
          <Text>
            <Text color={theme.accent}>❯ </Text>
            <Text inverse> </Text>
            <Text dimColor>{placeholder}</Text>
          </Text>
        ) : (
          renderLines(text, cursor, theme.accent)
        )}
      </Box>
      {suggestions.length > 0 && (
        <Box flexDirection="column" paddingX={2}>
          {suggestions.map((command) => (
            <Text key={command.name} dimColor>
              {command.usage.padEnd(18)} {command.description}
            </Text>
          ))}
        </Box>
      )}
    </Box>
  );
}

/** Everything but Enter: editing, moving, history, completion. `undefined` means the key is not ours. */
function applyKey(state: edit.EditorState, input: string, key: Key, history: InputHistory): edit.EditorState | "exit" | undefined {
  if (key.upArrow) {
    const previous = edit.moveUp(state) ?? (() => {
      const entry = history.previous(state.text);
      return entry === undefined ? undefined : edit.editorOf(entry);
    })();
    return previous;
  }
  if (key.downArrow) {
    const next = edit.moveDown(state) ?? (() => {
      const entry = history.next();
      return entry === undefined ? undefined : edit.editorOf(entry);
    })();
    return next;
  }
  if (key.leftArrow) return edit.moveLeft(state);
  if (key.rightArrow) return edit.moveRight(state);
  if (key.home) return edit.moveToLineStart(state);
  if (key.end) return edit.moveToLineEnd(state);
  // Most terminals send DEL for Backspace, which Ink reports as `delete`: both erase backwards.
  if (key.backspace || key.delete) return key.meta ? edit.deleteWordBackward(state) : edit.deleteBackward(state);
  if (key.tab) {
    const [match] = matchingCommands(state.text);
    return match ? edit.editorOf(`/${match.name} `) : undefined;
  }
  if (key.ctrl) {
    switch (input) {
      case "a":
        return edit.moveToLineStart(state);
      case "e":
        return edit.moveToLineEnd(state);
      case "u":
        return edit.killToLineStart(state);
      case "k":
        return edit.killToLineEnd(state);
      case "w":
        return edit.deleteWordBackward(state);
      case "d":
        return "exit";
      default:
        return undefined;
    }
  }
  if (key.escape || key.meta) return undefined;
  return input ? edit.insert(state, input) : undefined;
}

/** The text with the cursor drawn as an inverted cell; the first line carries the prompt mark. */
function renderLines(text: string, cursor: number, accent: string | undefined) {
  const lines = text.split("\n");
  let offset = 0;
  return lines.map((line, index) => {
    const start = offset;
    offset += line.length + 1;
    const hasCursor = cursor >= start && cursor <= start + line.length;
    const column = cursor - start;
    return (
      <Text key={index}>
        <Text color={accent}>{index === 0 ? "❯ " : "  "}</Text>
        {hasCursor ? (
          <>
            {line.slice(0, column)}
            <Text inverse>{line[column] ?? " "}</Text>
            {line.slice(column + 1)}
          </>
        ) : (
          line || " "
        )}
      </Text>
    );
  });
}
