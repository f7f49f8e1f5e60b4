import { useCallback, useEffect, useRef, useState } from "react";

/** A one-line hint that disappears by itself ("Press Ctrl-C again to exit"), or when dismissed. */
export function useFlash(durationMs = 2_000): [string | undefined, (text: string) => void, () => void] {
  const [text, setText] = useState<string | undefined>();
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const flash = useCallback(
    (next: string) => {
      if (timer.current) clearTimeout(timer.current);
      setText(next);
      timer.current = setTimeout(() => setText(undefined), durationMs);
    },
    [durationMs],
  );
  const dismiss = useCallback(() => {
    clearTimeout(timer.current);
    setText(undefined);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  return [text, flash, dismiss];
}
