import { HybridCodeSearcher } from "../search/hybrid-code-searcher.js";
import { PersistentFullText } from "../search/persistent-full-text.js";
import { FileRepository } from "../store/file-repository.js";
import { FullTextRepository } from "../store/full-text-repository.js";
import { VectorStore } from "../store/vector-store.js";
import { unconfigured } from "../config/unconfigured.js";
import { resolveProjectPaths } from "../project/project-paths.js";
import { openProjectStore, type OpenProjectStoreOptions, type ProjectStore } from "./project-store.js";

/** What one code search needs, and nothing a longer-lived process would. */
export interface OneShotSearch extends Omit<ProjectStore, "db"> {
  codeSearcher: HybridCodeSearcher;
  close(): void;
}

/**
 * Opens a project to answer one code search and exit (`sylk search "…"`):
 * no indexer, agent or history, whose modules alone took longer to load
 * than the search; with nothing configured, not even zod (`unconfigured`);
 * full text reads only the query's postings from the snapshot, and vectors
 * come from sqlite-vec without the in-memory tier, the database read
 * without memory mapping. The answers are those of a process that has
 * loaded everything.
 */
export async function openOneShotSearch(options: OpenProjectStoreOptions): Promise<OneShotSearch> {
  const env = options.env ?? process.env;
  const projectRoot = resolveProjectPaths(options.root, env).root;
  const loadedConfig =
    unconfigured({
      projectRoot,
      env,
      ...(options.flags ? { flags: options.flags } : {}),
      ...(options.userConfigPath ? { userConfigPath: options.userConfigPath } : {}),
    }) ?? (await import("./project-config.js")).loadProjectConfig(options);
  const { db, ...store } = openProjectStore({ ...options, mmap: false }, loadedConfig);
  const { config } = store.loadedConfig;
  const files = new FileRepository(db);
  return {
    ...store,
    codeSearcher: new HybridCodeSearcher({
      files,
      fullText: new PersistentFullText(new FullTextRepository(db), "code", { searchWithoutLoading: true }),
      vectors: new VectorStore(db, store.embedder.id, store.embedder.dimensions),
      embedder: store.embedder,
      config: config.search,
    }),
    close: () => db.close(),
  };
}
