import type { LoadedConfig } from "../config/load-config.js";
import { createEmbedder } from "../embedding/create-embedder.js";
import type { Embedder } from "../embedding/embedder.js";
import { ensureDataDirectory, resolveProjectPaths, type ProjectPaths } from "../project/project-paths.js";
import { openDatabase, type SqliteDatabase } from "../store/database.js";
import { upgradeTermsFormat } from "./upgrade-terms-format.js";

export interface OpenProjectStoreOptions {
  root: string;
  env?: NodeJS.ProcessEnv;
  /** Dotted configuration keys set by command-line flags. */
  flags?: Record<string, unknown>;
  userConfigPath?: string;
  /** See `OpenDatabaseOptions.mmap`. */
  mmap?: boolean;
}

/** A project's configuration, embedder and database: what every way of opening a project starts from. */
export interface ProjectStore {
  paths: ProjectPaths;
  loadedConfig: LoadedConfig;
  embedder: Embedder;
  db: SqliteDatabase;
  /** What opening changed that the user should be told once (a data directory narrowed to 0700). */
  notices: string[];
}

/**
 * Opens the database, its schema brought up to date, for a configuration
 * loaded by the caller (`loadProjectConfig`, or `unconfigured`): this module
 * loads no zod, so a one-off search with nothing configured loads none.
 */
export function openProjectStore(options: OpenProjectStoreOptions, loadedConfig: LoadedConfig): ProjectStore {
  const env = options.env ?? process.env;
  const paths = resolveProjectPaths(options.root, env);
  const embedder = createEmbedder(loadedConfig.config.embedding, env);
  const notices = ensureDataDirectory(paths);
  const db = openDatabase(paths.database, { mmap: options.mmap ?? true, onNotice: (notice) => notices.push(notice) });
  upgradeTermsFormat(db);
  return { paths, loadedConfig, embedder, db, notices };
}
