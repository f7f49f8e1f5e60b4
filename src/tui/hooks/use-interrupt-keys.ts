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
  /** Takes the hint off the screen before its time: "Ctrl-C again to exit" is no longer true. */
  dismissHint: () => void;
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
 * Ctrl-C: cancel the running turn, else clear the prompt, else exit if the
 * Ctrl-C before was pressed within two seconds. A Ctrl-C that finds text in
 * the prompt clears it and never exits, and any other key calls a pending
 * exit off: text typed after "Ctrl-C again to exit" is not lost to the next
 * press. Esc ends a history search, else cancels the turn: one listener
 * decides, so one Esc never does both.
 */
export function useInterruptKeys(actions: InterruptActions): void {
  const armedAt = useRef<number | undefined>(undefined);
  // The latest actions, whichever render's listener is called: a dialog may have opened since.
  const latest = useRef(actions);
  latest.current = actions;
  useKeys((input, key) => {
    const actions = latest.current;
    if (!isCtrlC(input, key)) {
      if (armedAt.current !== undefined) {
        armedAt.current = undefined;
        actions.dismissHint();
      }
      if (key.escape && !actions.dialogOpen) {
        if (actions.cancelSearch()) return;
        if (actions.cancelTurn()) actions.hint("Interrupted");
        return;
      }
      if (key.ctrl && input === "o" && !actions.dialogOpen) return actions.toggleTranscript();
      if (key.tab && key.shift && !actions.dialogOpen && !actions.blocking) return actions.cyclePermissionMode();
      return;
    }
    if (actions.blocking) return actions.exit();
    const now = Date.now();
    const armed = armedAt.current !== undefined && now - armedAt.current < DOUBLE_PRESS_MS;
    armedAt.current = now;
    // The second press leaves even if the turn it cancelled is still winding down.
    if (!armed && actions.cancelTurn()) return actions.hint("Interrupted · Ctrl-C again to exit");
    if (actions.clearPrompt()) return actions.hint("Prompt cleared · Ctrl-C again to exit");
    if (armed) return actions.exit();
    actions.hint("Press Ctrl-C again to exit");
  });
}

export function isCtrlC(input: string, key: Key): boolean {
  return key.ctrl && input === "c";
}
