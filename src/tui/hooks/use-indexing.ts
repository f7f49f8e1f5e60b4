import { useEffect, useSyncExternalStore } from "react";
import type { BackgroundIndexing, IndexNotice, IndexView } from "../../app/background-indexing.js";

/** The index's state as the status line and progress line show it; notices go to `onNotice`. */
export function useIndexing(indexing: BackgroundIndexing, onNotice: (notice: IndexNotice) => void): IndexView {
  useEffect(() => indexing.onNotice(onNotice), [indexing, onNotice]);
  return useSyncExternalStore(indexing.subscribe, indexing.snapshot);
}
