import { loadConfig, type LoadedConfig } from "../config/load-config.js";
import { FolderTrustStore } from "../project/folder-trust.js";
import { resolveProjectPaths, type ProjectPaths } from "../project/project-paths.js";
import type { OpenProjectStoreOptions } from "./project-store.js";

/**
 * Loads the project's configuration: trust-gated keys of its `.sylkrc` are
 * kept only in a folder trusted with those very settings. The trust store is
 * read from the checked `$SYLK_HOME` (`resolveProjectPaths` refuses one
 * inside the project).
 */
export function loadProjectConfig(options: OpenProjectStoreOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const paths = resolveProjectPaths(options.root, env);
  const decision = new FolderTrustStore(paths.sylkHome).decisionFor(paths.root);
  const loaded = loadConfig({
    projectRoot: paths.root,
    env,
    ...(decision ? { projectTrust: decision } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.userConfigPath ? { userConfigPath: options.userConfigPath } : {}),
  });
  return withSylkHomeLeftOut(loaded, paths);
}

/**
 * With the default `~/.sylk` inside the project (a project at or above the
 * home directory), the index and its watcher leave it out: a root-anchored
 * exclusion (`./.sylk`), so a `.sylk` folder elsewhere in the tree is not.
 */
function withSylkHomeLeftOut(loaded: LoadedConfig, paths: ProjectPaths): LoadedConfig {
  if (paths.sylkHomeInProject === undefined) return loaded;
  const index = loaded.config.index;
  return {
    ...loaded,
    config: { ...loaded.config, index: { ...index, excludePaths: [...index.excludePaths, `./${paths.sylkHomeInProject}`] } },
  };
}
