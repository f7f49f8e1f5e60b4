import { useInput, type Key } from "ink";
import { createContext, useContext, useLayoutEffect, useMemo, useRef, type ReactNode } from "react";
import { KeySplitter } from "../input/key-chunks.js";

export type KeyHandler = (input: string, key: Key) => void;

/** Hands each key of an input event to every subscriber, in the order they subscribed, before the next key. */
class KeyDispatcher {
  private readonly splitter = new KeySplitter();
  private readonly handlers = new Set<{ readonly handle: KeyHandler }>();

  subscribe(handle: KeyHandler): () => void {
    const entry = { handle };
    this.handlers.add(entry);
    return () => {
      this.handlers.delete(entry);
    };
  }

  dispatch(input: string, key: Key): void {
    for (const press of this.splitter.split(input, key)) {
      for (const entry of [...this.handlers]) entry.handle(press.input, press.key);
    }
  }
}

const KeysContext = createContext<KeyDispatcher | undefined>(undefined);

/**
 * One listener on Ink's input for the whole screen. Several keys read at once
 * are split (`KeySplitter`) and each is given to every `useKeys` handler
 * before the next: in `abc` Ctrl-C `def`, the prompt must have typed `abc`
 * before Ctrl-C clears it, and must type `def` after. With a listener each,
 * every handler would see the whole read in turn, out of order with the others.
 */
export function KeysProvider({ children }: { children: ReactNode }) {
  const dispatcher = useMemo(() => new KeyDispatcher(), []);
  useInput((input, key) => dispatcher.dispatch(input, key));
  return <KeysContext.Provider value={dispatcher}>{children}</KeysContext.Provider>;
}

/**
 * Ink's `useInput`, one key at a time: keys that arrive together are applied
 * in order. Outside a `KeysProvider` (a question asked on a screen of its
 * own), the keys are split for this handler alone.
 */
export function useKeys(handler: KeyHandler, options: { isActive?: boolean } = {}): void {
  const dispatcher = useContext(KeysContext);
  const active = options.isActive !== false;
  // The latest handler, whichever render's subscription is called.
  const latest = useRef(handler);
  latest.current = handler;
  // Subscribed while the commit runs, not after it: a component that replaces another (the session's prompt
  // the launch frame's, a dialog the prompt) takes the next key, where a passive effect would leave a moment
  // in which the unmounted one's handler still took keys and the new one did not yet.
  useLayoutEffect(() => {
    if (!dispatcher || !active) return;
    return dispatcher.subscribe((input, key) => latest.current(input, key));
  }, [dispatcher, active]);
  const ownSplitter = useMemo(() => new KeySplitter(), []);
  useInput(
    (input, key) => {
      for (const press of ownSplitter.split(input, key)) latest.current(press.input, press.key);
    },
    { isActive: active && !dispatcher },
  );
}
