import { useInput } from "ink";
import { useRef } from "react";

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
  // The latest actions, whichever render's listener Ink calls: a dialog may have opened since.
  const latest = useRef(actions);
  latest.current = actions;
  useInput((input, key) => {
    const actions = latest.current;
    if (key.escape && !actions.dialogOpen) {
      if (actions.cancelSearch()) return;
      if (actions.cancelTurn()) actions.hint("Interrupted");
      return;
    }
    if (key.ctrl && input === "o" && !actions.dialogOpen) return actions.toggleTranscript();
    if (key.tab && key.shift && !actions.dialogOpen && !actions.blocking) return actions.cyclePermissionMode();
    const presses = ctrlCPresses(input, key.ctrl);
    if (presses === 0) return;
    const now = Date.now();
    const again = presses > 1 || now - lastPress.current < DOUBLE_PRESS_MS;
    lastPress.current = now;
    if (again || actions.blocking) return actions.exit();
    if (actions.cancelTurn()) return actions.hint("Interrupted · Ctrl-C again to exit");
    if (actions.clearPrompt()) return actions.hint("Prompt cleared · Ctrl-C again to exit");
    actions.hint("Press Ctrl-C again to exit");
  });
}

/**
 * How many Ctrl-C presses one input event holds. Ink splits a read into
 * keys only at escape sequences, so two quick presses that a busy terminal
 * delivers in one read reach us as "\x03\x03", not as two Ctrl-C keys.
 */
export function ctrlCPresses(input: string, ctrl: boolean): number {
  if (ctrl && input === "c") return 1;
  return /^\x03+$/.test(input) ? input.length : 0;
}
