import type { Key } from "ink";
import { useRef } from "react";
import { useKeys } from "./use-keys.js";

interface InterruptActions {
  /** Cancels the running turn; false when nothing runs. */
  cancelTurn: () => boolean;
  /** Empties the prompt; false when it was empty. */
  clearPrompt: () => boolean;
  /** Ends a Ctrl-R search, restoring the prompt; false when none is open. */
  cancelSearch: () => boolean;
  exit: () => void;
  hint: (text: string) => void;
  /** Esc belongs to an open dialog (it denies), not to the turn. */
  dialogOpen: boolean;
  /** A question that must be answered before anything else (consent): Ctrl-C leaves at once. */
  blocking: boolean;
  /** Ctrl+O: the transcript view, every tool call's output in full (again: compact). */
  toggleTranscript: () => void;
  /** Shift+Tab: the next permission mode. */
  cyclePermissionMode: () => void;
}

const DOUBLE_PRESS_MS = 2_000;

/**
 * Ctrl-C: cancel the running turn, else clear the prompt, else arm exit; a
 * second Ctrl-C within two seconds always exits. Esc ends a history search,
 * else cancels the turn: one listener decides, so one Esc never does both.
 */
export function useInterruptKeys(actions: InterruptActions): void {
  const lastPress = useRef(0);
  // The latest actions, whichever render's listener is called: a dialog may have opened since.
  const latest = useRef(actions);
  latest.current = actions;
  useKeys((input, key) => {
    const actions = latest.current;
    if (key.escape && !actions.dialogOpen) {
      if (actions.cancelSearch()) return;
      if (actions.cancelTurn()) actions.hint("Interrupted");
      return;
    }
    if (key.ctrl && input === "o" && !actions.dialogOpen) return actions.toggleTranscript();
    if (key.tab && key.shift && !actions.dialogOpen && !actions.blocking) return actions.cyclePermissionMode();
    if (!isCtrlC(input, key)) return;
    const now = Date.now();
    const again = now - lastPress.current < DOUBLE_PRESS_MS;
    lastPress.current = now;
    if (again || actions.blocking) return actions.exit();
    if (actions.cancelTurn()) return actions.hint("Interrupted · Ctrl-C again to exit");
    if (actions.clearPrompt()) return actions.hint("Prompt cleared · Ctrl-C again to exit");
    actions.hint("Press Ctrl-C again to exit");
  });
}

export function isCtrlC(input: string, key: Key): boolean {
  return key.ctrl && input === "c";
}
