import type { PromptEntry } from "../../app/prompt-history.js";
import * as edit from "./line-editor.js";

/**
 * A paste of more than PASTE_MAX_LINES lines or PASTE_MAX_CHARS characters
 * shows as one `[Pasted text #1 +N lines]` placeholder: drawing every pasted
 * line again on each keystroke made typing lag (150–180 ms a key with 300
 * lines, seconds with 2,000). Ten lines still fit on screen beside the rest of
 * the prompt; a thousand characters is about a dozen lines of a wide terminal.
 */
const PASTE_MAX_LINES = 10;
const PASTE_MAX_CHARS = 1_000;

/** The prompt being edited: the text on screen, and the pasted texts its placeholders stand for. */
export interface PromptBuffer {
  readonly editor: edit.EditorState;
  /** By placeholder number. A paste whose placeholder was edited away is simply never expanded. */
  readonly pastes: ReadonlyMap<number, string>;
}

export const EMPTY_BUFFER: PromptBuffer = { editor: edit.EMPTY_EDITOR, pastes: new Map() };

const PLACEHOLDER = /\[Pasted text #(\d+) \+\d+ lines?\]/g;
const PLACEHOLDER_AT_END = /\[Pasted text #(\d+) \+\d+ lines?\]$/;

export function bufferOf(text: string): PromptBuffer {
  return { editor: edit.editorOf(text), pastes: new Map() };
}

export function lineCount(text: string): number {
  let lines = 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

export function placeholder(id: number, text: string): string {
  const lines = lineCount(text);
  return `[Pasted text #${id} +${lines} ${lines === 1 ? "line" : "lines"}]`;
}

function isLarge(text: string): boolean {
  return text.length > PASTE_MAX_CHARS || lineCount(text) > PASTE_MAX_LINES;
}

/** Inserts pasted text at the cursor: as it is when small, else as a placeholder standing for it. */
export function insertPaste(buffer: PromptBuffer, pasted: string): PromptBuffer {
  const clean = edit.cleanInput(pasted);
  if (!isLarge(clean)) return { ...buffer, editor: edit.insert(buffer.editor, clean) };
  const id = Math.max(0, ...buffer.pastes.keys()) + 1;
  return { editor: edit.insert(buffer.editor, placeholder(id, clean)), pastes: new Map(buffer.pastes).set(id, clean) };
}

/** Backspace: a placeholder right before the cursor goes as a whole, with its paste. */
export function deleteBackward(buffer: PromptBuffer): PromptBuffer {
  const { text, cursor } = buffer.editor;
  const match = PLACEHOLDER_AT_END.exec(text.slice(Math.max(0, cursor - 64), cursor));
  const id = Number(match?.[1]);
  if (!match || !buffer.pastes.has(id)) return { ...buffer, editor: edit.deleteBackward(buffer.editor) };
  const start = cursor - match[0].length;
  const pastes = new Map(buffer.pastes);
  pastes.delete(id);
  return { editor: { text: text.slice(0, start) + text.slice(cursor), cursor: start }, pastes };
}

/** The prompt as it is sent: each placeholder replaced by its paste, whose place is recorded for the history. */
export function expand(buffer: PromptBuffer): PromptEntry {
  const { text } = buffer.editor;
  let full = "";
  let offset = 0;
  const pasted: Array<[number, number]> = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    const content = buffer.pastes.get(Number(match[1]));
    if (content === undefined) continue;
    full += text.slice(offset, match.index);
    pasted.push([full.length, full.length + content.length]);
    full += content;
    offset = match.index + match[0].length;
  }
  full += text.slice(offset);
  return pasted.length > 0 ? { text: full, pasted } : { text: full };
}

/** A sent prompt back in the editor, its pasted parts collapsed again (numbered from 1), the cursor at the end. */
export function collapse(entry: PromptEntry): PromptBuffer {
  let text = "";
  let offset = 0;
  const pastes = new Map<number, string>();
  for (const [start, end] of entry.pasted ?? []) {
    const content = entry.text.slice(start, end);
    const id = pastes.size + 1;
    pastes.set(id, content);
    text += entry.text.slice(offset, start) + placeholder(id, content);
    offset = end;
  }
  text += entry.text.slice(offset);
  return { editor: edit.editorOf(text), pastes };
}

/** Texts one after another, a blank line between them; each long one stands as a placeholder, as if pasted. */
export function bufferOfParts(parts: readonly string[]): PromptBuffer {
  let buffer = EMPTY_BUFFER;
  for (const part of parts) {
    if (!part.trim()) continue;
    if (buffer.editor.text) buffer = { ...buffer, editor: edit.insert(buffer.editor, "\n\n") };
    buffer = insertPaste(buffer, part);
  }
  return buffer;
}
