import { existsSync } from "node:fs";
import { countFilesToIndex } from "../indexer/scanner.js";
import { resolveProjectPaths } from "../project/project-paths.js";
import { SEPARATE_INDEX_PROCESS_ABOVE_FILES } from "./first-index-process.js";
import { loadProjectConfig } from "./project-config.js";

/**
 * What can be known of a first index before the project's store is opened:
 * `large` (no index yet, more files than the limit: start the process set
 * up for it now), `small` (no index yet, the limit or fewer: index here),
 * or `ask-store` (a database exists: only it can say whether it holds an
 * index).
 */
export type FirstIndexBeforeOpening = "large" | "small" | "ask-store";

export interface FirstIndexBeforeOpeningOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  limit?: number;
}

/**
 * Decides "the index is empty and the tree has more than `limit` files"
 * without opening the store (docs/DESIGN-NOTES.md, "A large first index in
 * a process set up for it", *Decided before the store is opened*): a project
 * with no database file has no index. Opening the store to ask its file
 * table (loading the project's services, making the data directory,
 * creating the database, closing it) cost the process that is replaced
 * ≈ 0.07 s before its restart, which the restarted process then pays again.
 */
export async function firstIndexBeforeOpening(options: FirstIndexBeforeOpeningOptions): Promise<FirstIndexBeforeOpening> {
  const paths = resolveProjectPaths(options.root, options.env);
  if (existsSync(paths.database)) return "ask-store";
  const limit = options.limit ?? SEPARATE_INDEX_PROCESS_ABOVE_FILES;
  // The configuration the indexer walks with (`openProject` gives it the same `index` section).
  const { config } = loadProjectConfig({ root: options.root, env: options.env });
  const files = await countFilesToIndex(paths.root, config.index, limit, options.signal);
  return files > limit ? "large" : "small";
}
