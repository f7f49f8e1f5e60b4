import { useCallback, useMemo, useRef, useState } from "react";
import { EMPTY_EDITOR, type EditorState } from "../input/line-editor.js";

export interface PromptEditor {
  /** Always the latest state, even between a keystroke and the next render. */
  readonly state: EditorState;
  update(next: EditorState): void;
  clear(): void;
}

/**
 * The prompt's text, held in a ref so that keys arriving faster than React
 * renders (a paste split in chunks, Enter right after typing) each see the
 * result of the one before; a counter makes the change visible.
 */
export function usePromptEditor(): PromptEditor {
  const ref = useRef<EditorState>(EMPTY_EDITOR);
  const [, setVersion] = useState(0);
  const update = useCallback((next: EditorState) => {
    if (next === ref.current) return;
    ref.current = next;
    setVersion((version) => version + 1);
  }, []);
  return useMemo(
    () => ({
      get state() {
        return ref.current;
      },
      update,
      clear: () => update(EMPTY_EDITOR),
    }),
    [update],
  );
}
