import type { McpServerConfig, StdioServerConfig } from "../config/mcp-servers-schema.js";

export type { HttpServerConfig, McpServerConfig, StdioServerConfig } from "../config/mcp-servers-schema.js";

export function isStdioServer(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config;
}

/** A server's configuration with every `${VAR}` replaced, or the variables that are not set. */
export type Expanded<T> = { ok: true; value: T } | { ok: false; missing: string[] };

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `${VAR}` and `${VAR:-default}` in `args`, `env`, `headers` and `url`,
 * from the user's environment only: a value is never read from a project's
 * files. A variable that is unset and has no default is reported by name
 * rather than replaced by nothing (an empty token would fail later, and
 * less clearly).
 */
export function expandServerConfig<T extends McpServerConfig>(config: T, env: NodeJS.ProcessEnv): Expanded<T> {
  const missing = new Set<string>();
  const expand = (text: string) =>
    text.replace(VARIABLE, (_, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return "";
    });
  const expandRecord = (record: Record<string, string> | undefined) =>
    record ? Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value)])) : undefined;
  const value: McpServerConfig = isStdioServer(config)
    ? { ...config, ...(config.args ? { args: config.args.map(expand) } : {}), ...(config.env ? { env: expandRecord(config.env) } : {}) }
    : { ...config, url: expand(config.url), ...(config.headers ? { headers: expandRecord(config.headers) } : {}) };
  return missing.size > 0 ? { ok: false, missing: [...missing] } : { ok: true, value: value as T };
}
