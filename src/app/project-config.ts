import { loadConfig, type LoadedConfig } from "../config/load-config.js";
import { FolderTrustStore } from "../project/folder-trust.js";
import { resolveProjectPaths } from "../project/project-paths.js";
import type { OpenProjectStoreOptions } from "./project-store.js";

/** Loads the project's configuration: trust-gated keys of its `.sylkrc` are kept only in a folder trusted with those very settings. */
export function loadProjectConfig(options: OpenProjectStoreOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const paths = resolveProjectPaths(options.root, env);
  const decision = new FolderTrustStore(paths.sylkHome).decisionFor(paths.root);
  return loadConfig({
    projectRoot: paths.root,
    env,
    ...(decision ? { projectTrust: decision } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    ...(options.userConfigPath ? { userConfigPath: options.userConfigPath } : {}),
  });
}
