import { useEffect, useRef } from "react";

/** How long the width must hold before the screen is drawn again: a window dragged wider sends a resize per column. */
const SETTLE_MS = 150;

/**
 * Calls `redraw` once the terminal's width has settled after a change. A
 * terminal reflows what was drawn at the old width: the live part of the
 * screen (the prompt's box, the status line) then takes more rows than Ink
 * erases before drawing it again, and copies of it stack up. Clearing the
 * screen and printing everything again at the new width is the one clean
 * way out.
 */
export function useRedrawOnResize(columns: number, redraw: () => void): void {
  // Each change restarts the wait; back at the first width, the screen was still drawn at another in between.
  const previous = useRef(columns);
  const latest = useRef(redraw);
  latest.current = redraw;
  useEffect(() => {
    if (columns === previous.current) return;
    previous.current = columns;
    const timer = setTimeout(() => latest.current(), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [columns]);
}
