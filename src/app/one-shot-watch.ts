import { type BackgroundIndexing, backgroundIndexingOf } from "./background-indexing.js";
import type { ProjectServices } from "./project-services.js";

/**
 * A one-shot run's watch of the project (`sylk ask`), as the interactive
 * session keeps one: started once the start-up check has brought the index
 * up to date, it watches the tree on a thread of its own and, once the
 * watch holds, checks the tree once more; from then on grep takes the
 * index's files as they stand and reads those the watcher saw change,
 * instead of checking the whole tree (a `stat` per file) at every call.
 * Files the agent changes meanwhile are indexed as the session indexes
 * them. Nothing waits for it: until it vouches, grep checks the disk as it
 * always did, and a watch that fails only leaves it so.
 */
export function watchWhileRunning(
  services: Pick<ProjectServices, "paths" | "loadedConfig" | "indexer" | "indexLock" | "backfill" | "watchedChanges">,
): Pick<BackgroundIndexing, "close"> {
  const indexing = backgroundIndexingOf(services);
  indexing.start();
  return indexing;
}
