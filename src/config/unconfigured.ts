import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { CONFIG_FILE_NAME, configDefaults } from "./defaults.js";
import type { LoadConfigOptions, LoadedConfig } from "./load-config.js";
import type { SylkConfig } from "./schema.js";

/**
 * The configuration when nothing configures it: no `~/.sylkrc`, no project
 * `.sylkrc`, no `SYLK_<SECTION>_…` variable and no flags. Then there is no
 * input to validate, and `loadConfig` would return the defaults: this does
 * the same without loading zod, its schemas and the JSON-with-comments
 * parser (≈ 9 ms of CPU of a one-shot search). Undefined when anything is
 * configured: then `loadConfig` must read and validate it.
 */
export function unconfigured(options: Omit<LoadConfigOptions, "projectTrust">): LoadedConfig | undefined {
  const env = options.env ?? process.env;
  if (options.flags && Object.values(options.flags).some((value) => value !== undefined)) return undefined;
  const defaults: SylkConfig = configDefaults();
  // `loadConfig` reads `SYLK_<SECTION>_<KEY>`; any variable that starts like one sends us there (SYLK_HOME does not).
  const prefixes = Object.keys(defaults).map((section) => `SYLK_${section.toUpperCase()}_`);
  if (Object.keys(env).some((name) => prefixes.some((prefix) => name.startsWith(prefix)))) return undefined;
  const userPath = resolve(options.userConfigPath ?? join(env.HOME ?? homedir(), CONFIG_FILE_NAME));
  if (existsSync(userPath) || existsSync(resolve(options.projectRoot, CONFIG_FILE_NAME))) return undefined;
  return { config: defaults, sources: new Map() };
}
