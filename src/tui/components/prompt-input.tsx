import { Box, Text } from "ink";
import { cycleCommands, matchingCommands, type SlashCommandSpec } from "../commands/command-list.js";
import { useKeys } from "../hooks/use-keys.js";
import type { PromptEditor } from "../hooks/use-prompt-editor.js";
import type { HistorySearch } from "../input/history-search.js";
import { collapse } from "../input/pasted-text.js";
import { mentionAtCursor, type MentionSource } from "../input/mention-completion.js";
import { PASTE_END, PASTE_START } from "../input/key-chunks.js";
import { applyPromptKey, pasteInto } from "../input/prompt-keys.js";
import { useTheme } from "../theme.js";
import { SlashMenu } from "./slash-menu.js";
import { visible } from "../../format/visible-text.js";

interface PromptInputProps {
  editor: PromptEditor;
  /** The full text of the prompt (pastes expanded); the editor has already added it to the history. */
  onSubmit: (text: string) => void;
  /** Ctrl-D on an empty prompt. */
  onExit: () => void;
  placeholder: string;
  /** Suggestions for an `@` mention (the project's files and definitions). */
  mentions?: MentionSource;
  /** Slash commands of a source of their own (an MCP server's prompts), suggested and completed beside the built-in ones. */
  commands?: () => readonly SlashCommandSpec[];
}

/**
 * The prompt. Enter sends; a trailing "\" + Enter, Alt+Enter, Ctrl+J, or
 * Shift+Enter (terminals with the kitty keyboard protocol) insert a line
 * break; a bracketed paste, however many chunks it arrives in, is inserted
 * once, a large one as a placeholder. Ctrl-R searches the history. Keys
 * read together are applied one by one (`useKeys`).
 */
export function PromptInput({ editor, onSubmit, onExit, placeholder, mentions, commands }: PromptInputProps) {
  const theme = useTheme();

  useKeys((input, key) => {
    if (input === PASTE_START) {
      editor.pasteChunks = [];
      return;
    }
    if (input === PASTE_END) {
      const chunks = editor.pasteChunks;
      editor.pasteChunks = undefined;
      if (chunks) editor.update(pasteInto(editor.state, chunks.join(""), editor.history.entries));
      return;
    }
    if (editor.pasteChunks) {
      // Ink reports a lone tab as a key without text; everything else in a paste is text.
      editor.pasteChunks.push(key.tab ? "\t" : input);
      return;
    }
    const outcome = applyPromptKey(editor.state, input, key, editor.history, mentions, commands?.() ?? []);
    if (outcome === "exit") {
      if (editor.state.buffer.editor.text === "") onExit();
    } else if (outcome && "send" in outcome) {
      editor.remember(outcome.send);
      editor.clear();
      onSubmit(outcome.send.text);
    } else if (outcome) {
      editor.update(outcome);
    }
  });

  const { buffer, search, completion, mention } = editor.state;
  const { text, cursor } = buffer.editor;
  const extra = commands?.() ?? [];
  const suggestions = completion ? cycleCommands(completion, extra) : matchingCommands(text, extra);
  const selected = completion ? suggestions[completion.index]?.name : undefined;
  const mentionQuery = mentions && !search ? mentionAtCursor(buffer.editor) : undefined;
  const mentionSuggestions = mentionQuery && mentions && !mention ? mentions(mentionQuery.query) : [];
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={search ? theme.accent : theme.muted} paddingX={1} flexDirection="column">
        {search ? (
          <SearchMatch search={search} editor={editor} accent={theme.accent} />
        ) : text === "" ? (
          <Text>
            <Text color={theme.accent}>❯ </Text>
            <Text inverse> </Text>
            <Text dimColor>{placeholder}</Text>
          </Text>
        ) : (
          renderLines(text, cursor, theme.accent)
        )}
      </Box>
      {search && <SearchLine search={search} />}
      {!search && suggestions.length > 0 && <SlashMenu commands={suggestions} selected={selected} accent={theme.accent} />}
      {mentionSuggestions.length > 0 && (
        <Box flexDirection="column" paddingX={2}>
          {mentionSuggestions.map((suggestion) => (
            <Text key={suggestion.text} dimColor wrap="truncate-end">
              @{visible(suggestion.text, { newlines: false })} <Text dimColor>{visible(suggestion.detail, { newlines: false })}</Text>
            </Text>
          ))}
          <Text dimColor>Tab completes · the file or definition is attached to the prompt</Text>
        </Box>
      )}
    </Box>
  );
}

/** The match a Ctrl-R search would put in the prompt, its pastes collapsed as they would be there. */
function SearchMatch({ search, editor, accent }: { search: HistorySearch; editor: PromptEditor; accent: string | undefined }) {
  const entry = search.match === undefined ? undefined : editor.history.entries[search.match];
  if (!entry) {
    return (
      <Text>
        <Text color={accent}>❯ </Text>
        <Text dimColor>{search.query ? "no match" : "no prompts yet"}</Text>
      </Text>
    );
  }
  const shown = collapse(entry).editor.text;
  return <>{renderLines(shown, -1, accent)}</>;
}

function SearchLine({ search }: { search: HistorySearch }) {
  const status = search.match === undefined ? "  (no match)" : search.exhausted ? "  (no older match)" : "";
  return (
    <Box paddingX={2}>
      <Text>
        search: {visible(search.query, { newlines: false })}
        <Text inverse> </Text>
        <Text dimColor>{status} Ctrl-R older · Enter or → use · Esc cancel</Text>
      </Text>
    </Box>
  );
}

/**
 * The text with the cursor drawn as an inverted cell (none when `cursor` is
 * -1); the first line carries the prompt mark. A completed mention or a
 * paste can bring characters a terminal would act on: they are shown escaped.
 */
function renderLines(text: string, cursor: number, accent: string | undefined) {
  const lines = text.split("\n");
  let offset = 0;
  return lines.map((line, index) => {
    const start = offset;
    offset += line.length + 1;
    const hasCursor = cursor >= start && cursor <= start + line.length;
    const column = cursor - start;
    // The whole character under the cursor: half of a surrogate pair would be drawn as an escape.
    const under = hasCursor ? String.fromCodePoint(line.codePointAt(column) ?? 0x20) : "";
    return (
      <Text key={index}>
        <Text color={accent}>{index === 0 ? "❯ " : "  "}</Text>
        {hasCursor ? (
          <>
            {visible(line.slice(0, column))}
            <Text inverse>{visible(under)}</Text>
            {visible(line.slice(column + under.length))}
          </>
        ) : (
          visible(line) || " "
        )}
      </Text>
    );
  });
}
