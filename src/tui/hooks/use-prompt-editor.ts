import { useCallback, useMemo, useRef, useState } from "react";
import type { PromptEntry, PromptHistory } from "../../app/prompt-history.js";
import { InputHistory } from "../input/input-history.js";
import { EMPTY_PROMPT, type PromptState } from "../input/prompt-keys.js";

export interface PromptEditor {
  /** Always the latest state, even between a keystroke and the next render. */
  readonly state: PromptState;
  update(next: PromptState): void;
  /** Empties the prompt and ends a search; false when there was nothing to clear. */
  clear(): boolean;
  /** Esc during a Ctrl-R search: the prompt as it was before; false when no search is open. */
  cancelSearch(): boolean;
  /** The prompts sent before: the project's earlier sessions' (read on first use), then this session's. */
  readonly history: InputHistory;
  /** Records a sent prompt in the history and in the project's store. */
  remember(entry: PromptEntry): void;
  /** The chunks of a bracketed paste, collected until its end marker; undefined when no paste is arriving. */
  pasteChunks: string[] | undefined;
}

/** What an editor starts from: the launch frame's prompt, as typed before the session opened. */
export type PromptDraft = Pick<PromptEditor, "state" | "pasteChunks">;

/**
 * The prompt's state, held above the prompt component: the component unmounts
 * while a dialog is open, and the history, a half-typed prompt and a paste
 * must outlive it. Held in a ref so that keys arriving faster than React
 * renders (a paste split in chunks, Enter right after typing) each see the
 * result of the one before; a counter makes the change visible.
 */
export function usePromptEditor(store: PromptHistory, onSaveError: (message: string) => void, initial?: PromptDraft): PromptEditor {
  const ref = useRef<PromptState>(initial?.state ?? EMPTY_PROMPT);
  const historyRef = useRef<InputHistory | undefined>(undefined);
  const pasteRef = useRef<string[] | undefined>(initial?.pasteChunks);
  const reported = useRef(false);
  const reportRef = useRef(onSaveError);
  reportRef.current = onSaveError;
  const [, setVersion] = useState(0);
  const update = useCallback((next: PromptState) => {
    if (next === ref.current) return;
    ref.current = next;
    setVersion((version) => version + 1);
  }, []);
  return useMemo(() => {
    const history = () => (historyRef.current ??= new InputHistory(store.load()));
    return {
      get state() {
        return ref.current;
      },
      update,
      clear() {
        const { buffer, search } = ref.current;
        if (!search && buffer.editor.text === "") return false;
        update(EMPTY_PROMPT);
        return true;
      },
      cancelSearch() {
        const { search } = ref.current;
        if (!search) return false;
        update({ buffer: search.draft });
        return true;
      },
      get history() {
        return history();
      },
      remember(entry: PromptEntry) {
        if (!history().push(entry)) return;
        const problem = store.add(entry);
        // Once a session: the history is a convenience, one note about it is enough.
        if (problem && !reported.current) {
          reported.current = true;
          reportRef.current(problem);
        }
      },
      get pasteChunks() {
        return pasteRef.current;
      },
      set pasteChunks(chunks: string[] | undefined) {
        pasteRef.current = chunks;
      },
    };
  }, [store, update]);
}
