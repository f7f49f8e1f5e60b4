import type { EditorState } from "./line-editor.js";

/** What the prompt asks of the project when `@` is typed: suggestions for what follows it. */
export type MentionSource = (query: string) => ReadonlyArray<{ text: string; detail: string }>;

/** A Tab cycle through the suggestions for one `@…` word. */
export interface MentionCycle {
  /** Where the word (its `@`) starts in the text. */
  readonly start: number;
  readonly options: readonly string[];
  readonly index: number;
}

/** The `@word` that ends at the cursor: its start and what follows the `@`; undefined when the cursor is not at one. */
export function mentionAtCursor(editor: EditorState): { start: number; query: string } | undefined {
  const before = editor.text.slice(0, editor.cursor);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!match) return undefined;
  return { start: before.length - (match[2]?.length ?? 0) - 1, query: match[2] ?? "" };
}

/**
 * Tab on an `@word`: the first suggestion replaces it; Tab again (the
 * prompt still showing that suggestion) the next one, wrapping.
 */
export function completeMention(
  editor: EditorState,
  cycle: MentionCycle | undefined,
  source: MentionSource,
): { editor: EditorState; cycle: MentionCycle } | undefined {
  const continuing = cycle !== undefined && editor.text.slice(cycle.start, editor.cursor) === `@${cycle.options[cycle.index]}`;
  const at = continuing ? { start: cycle.start } : mentionAtCursor(editor);
  if (!at) return undefined;
  const options = continuing ? cycle.options : source((at as { query: string }).query).map((suggestion) => suggestion.text);
  if (options.length === 0) return undefined;
  const index = continuing ? (cycle.index + 1) % options.length : 0;
  const inserted = `@${options[index]}`;
  const text = editor.text.slice(0, at.start) + inserted + editor.text.slice(editor.cursor);
  return { editor: { text, cursor: at.start + inserted.length }, cycle: { start: at.start, options, index } };
}
