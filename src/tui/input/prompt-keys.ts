import type { Key } from "ink";
import type { PromptEntry } from "../../app/prompt-history.js";
import type { CompletionCycle, SlashCommandMenu } from "../commands/command-list.js";
import * as search from "./history-search.js";
import type { InputHistory } from "./input-history.js";
import * as edit from "./line-editor.js";
import { completeMention, type MentionCycle, type MentionSource } from "./mention-completion.js";
import * as paste from "./pasted-text.js";

/** Everything the prompt shows: the text being edited, and the Ctrl-R search or Tab cycle in progress. */
export interface PromptState {
  readonly buffer: paste.PromptBuffer;
  readonly search?: search.HistorySearch;
  readonly completion?: CompletionCycle;
  readonly mention?: MentionCycle;
}

export const EMPTY_PROMPT: PromptState = { buffer: paste.EMPTY_BUFFER };

/** A new state, the prompt to send, Ctrl-D's request to leave, or undefined for a key that is not the prompt's. */
export type KeyOutcome = PromptState | { send: PromptEntry } | "exit" | undefined;

/**
 * One key (or a chunk of typed text) applied to the prompt. Bracketed pastes
 * arrive here already collected (`pastedText`); Esc and Ctrl-C belong to
 * `useInterruptKeys`, which also ends a search.
 */
export function applyPromptKey(
  state: PromptState,
  input: string,
  key: Key,
  history: InputHistory,
  commands: SlashCommandMenu,
  mentions?: MentionSource,
): KeyOutcome {
  if (state.search) return searchKey(state.search, input, key, history.entries);
  const { buffer } = state;
  if (key.return) return enter(buffer, key.shift || key.meta);
  // Shift+Tab is the session's (the permission mode), not the prompt's.
  if (key.tab && !key.shift) {
    const mentioned = mentions && completeMention(buffer.editor, state.mention, mentions);
    if (mentioned) return { buffer: { ...buffer, editor: mentioned.editor }, mention: mentioned.cycle };
    const completed = commands.complete(buffer.editor.text, state.completion);
    return completed ? { buffer: paste.bufferOf(completed.text), completion: completed.cycle } : undefined;
  }
  if (key.ctrl && input === "r") return { buffer, search: search.startSearch(buffer, history.entries) };
  if (key.upArrow || key.downArrow) return walk(buffer, key.upArrow, history);
  // Most terminals send DEL for Backspace, which Ink reports as `delete`: both erase backwards.
  if ((key.backspace || key.delete) && !key.meta) return { buffer: paste.deleteBackward(buffer) };
  if (key.ctrl && input === "d") return "exit";
  // Several characters at once: typed text read together (its keys already split out by `KeySplitter`), or a
  // paste on a terminal without bracketed paste, whose line breaks and tabs stay in the text.
  if (input.length > 1 && !key.ctrl && !key.meta) return { buffer: paste.insertPaste(buffer, input) };
  const editor = editKey(buffer.editor, input, key);
  return editor ? { buffer: { ...buffer, editor } } : undefined;
}

/** A bracketed paste, collected: into the prompt (a large one as a placeholder), or into a search's query as one line. */
export function pasteInto(state: PromptState, pasted: string, entries: readonly PromptEntry[]): PromptState {
  if (!state.search) return { buffer: paste.insertPaste(state.buffer, pasted) };
  const typed = edit.cleanInput(pasted).replace(/\n/g, " ");
  return typed ? { buffer: state.buffer, search: search.extendQuery(state.search, entries, typed) } : state;
}

/** Enter sends, unless it continues the prompt on a new line ("\" before it, Alt/Shift+Enter, Ctrl+J). */
function enter(buffer: paste.PromptBuffer, newline: boolean): KeyOutcome {
  const { editor } = buffer;
  if (newline) return { buffer: { ...buffer, editor: edit.insert(editor, "\n") } };
  if (edit.endsWithContinuation(editor)) return { buffer: { ...buffer, editor: edit.replaceContinuationWithNewline(editor) } };
  if (!editor.text.trim()) return { buffer };
  return { send: paste.expand(buffer) };
}

/** Up/down move between the lines of a multi-line prompt, and past the first or last line walk the history. */
function walk(buffer: paste.PromptBuffer, up: boolean, history: InputHistory): KeyOutcome {
  const moved = up ? edit.moveUp(buffer.editor) : edit.moveDown(buffer.editor);
  if (moved) return { buffer: { ...buffer, editor: moved } };
  const entry = up ? history.previous(paste.expand(buffer)) : history.next();
  return entry ? { buffer: paste.collapse(entry) } : undefined;
}

function searchKey(current: search.HistorySearch, input: string, key: Key, entries: readonly PromptEntry[]): KeyOutcome {
  if (key.return || key.rightArrow) return { buffer: search.acceptSearch(current, entries) };
  if (key.ctrl && input === "g") return { buffer: current.draft };
  const buffer = current.draft;
  if (key.ctrl && input === "r") return { buffer, search: search.searchOlder(current, entries) };
  if (key.backspace || key.delete) return { buffer, search: search.shortenQuery(current, entries) };
  if (key.ctrl || key.meta || key.escape || key.tab || key.upArrow || key.downArrow || key.leftArrow) return undefined;
  const typed = edit.cleanInput(input).replace(/\n/g, " ");
  return typed ? { buffer, search: search.extendQuery(current, entries, typed) } : undefined;
}

function editKey(state: edit.EditorState, input: string, key: Key): edit.EditorState | undefined {
  if (key.leftArrow) return edit.moveLeft(state);
  if (key.rightArrow) return edit.moveRight(state);
  if (key.home) return edit.moveToLineStart(state);
  if (key.end) return edit.moveToLineEnd(state);
  // Alt+Backspace (plain Backspace is the buffer's, for placeholders).
  if (key.backspace || key.delete) return edit.deleteWordBackward(state);
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
      default:
        return undefined;
    }
  }
  if (key.escape || key.meta || key.tab) return undefined;
  return input ? edit.insert(state, input) : undefined;
}
