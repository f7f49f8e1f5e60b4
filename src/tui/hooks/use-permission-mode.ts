import { useCallback, useRef, useState } from "react";
import type { PermissionMode } from "../../agent/permissions/permission-modes.js";

export interface PermissionModeState {
  /** The mode shown (the status line). */
  mode: PermissionMode;
  /** The mode now, for a conversation opened in the same tick (/clear, /model). */
  current(): PermissionMode;
  /** Shift+Tab and `/permissions mode`: the open conversation's policy now, and the next one opened starts in it. */
  change(next: PermissionMode, session: { setPermissionMode(mode: PermissionMode): void }): void;
}

/** The screen's permission mode, starting where the session started. */
export function usePermissionMode(initial: PermissionMode): PermissionModeState {
  const [mode, setMode] = useState<PermissionMode>(initial);
  const ref = useRef(mode);
  // Stable, so a callback that reads the mode through it need not be made again when the mode changes.
  const current = useCallback(() => ref.current, []);
  return {
    mode,
    current,
    change(next, session) {
      ref.current = next;
      setMode(next);
      session.setPermissionMode(next);
    },
  };
}
