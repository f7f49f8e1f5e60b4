/**
 * The prompt's text and cursor, edited by pure functions: the component
 * maps keys to them, the tests call them directly. The cursor is an index
 * into `text`; lines are separated by "\n".
 */
export interface EditorState {
  readonly text: string;
  readonly cursor: number;
}

export const EMPTY_EDITOR: EditorState = { text: "", cursor: 0 };

export function editorOf(text: string): EditorState {
  return { text, cursor: text.length };
}

/** Typed or pasted text as the prompt holds it: line breaks (\r\n, \r) become "\n" and tabs two spaces. */
export function cleanInput(typed: string): string {
  return (
    typed
      .replace(/\r\n?/g, "\n")
      .replace(/\t/g, "  ")
      // Other control characters (a stray escape, a bell) would garble the frame.
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
  );
}

/** Inserts typed or pasted text, cleaned by `cleanInput`. */
export function insert(state: EditorState, typed: string): EditorState {
  const clean = cleanInput(typed);
  if (!clean) return state;
  return { text: state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor), cursor: state.cursor + clean.length };
}

export function deleteBackward(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  const step = codePointBefore(state.text, state.cursor);
  return { text: state.text.slice(0, state.cursor - step) + state.text.slice(state.cursor), cursor: state.cursor - step };
}

export function deleteWordBackward(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor);
  const start = before.replace(/\S*\s*$/, "").length;
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

export function killToLineStart(state: EditorState): EditorState {
  const start = lineStart(state);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

export function killToLineEnd(state: EditorState): EditorState {
  return { text: state.text.slice(0, state.cursor) + state.text.slice(lineEnd(state)), cursor: state.cursor };
}

export function moveLeft(state: EditorState): EditorState {
  return { ...state, cursor: state.cursor - codePointBefore(state.text, state.cursor) };
}

export function moveRight(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const code = state.text.codePointAt(state.cursor) ?? 0;
  return { ...state, cursor: state.cursor + (code > 0xffff ? 2 : 1) };
}

export function moveToLineStart(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state) };
}

export function moveToLineEnd(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state) };
}

/** Moves to the same column of the line above; undefined on the first line (history takes over). */
export function moveUp(state: EditorState): EditorState | undefined {
  const start = lineStart(state);
  if (start === 0) return undefined;
  const previousStart = state.text.lastIndexOf("\n", start - 2) + 1;
  const column = state.cursor - start;
  return { ...state, cursor: Math.min(previousStart + column, start - 1) };
}

/** Moves to the same column of the line below; undefined on the last line. */
export function moveDown(state: EditorState): EditorState | undefined {
  const end = lineEnd(state);
  if (end >= state.text.length) return undefined;
  const column = state.cursor - lineStart(state);
  const nextEnd = state.text.indexOf("\n", end + 1);
  return { ...state, cursor: Math.min(end + 1 + column, nextEnd === -1 ? state.text.length : nextEnd) };
}

/** "\" before the cursor: Enter continues the prompt on a new line instead of sending it. */
export function endsWithContinuation(state: EditorState): boolean {
  return state.cursor > 0 && state.text[state.cursor - 1] === "\\";
}

export function replaceContinuationWithNewline(state: EditorState): EditorState {
  return insert(deleteBackward(state), "\n");
}

function lineStart(state: EditorState): number {
  return state.text.lastIndexOf("\n", state.cursor - 1) + 1;
}

function lineEnd(state: EditorState): number {
  const end = state.text.indexOf("\n", state.cursor);
  return end === -1 ? state.text.length : end;
}

function codePointBefore(text: string, index: number): number {
  if (index <= 0) return 0;
  const low = text.charCodeAt(index - 1);
  return index >= 2 && low >= 0xdc00 && low <= 0xdfff ? 2 : 1;
}
