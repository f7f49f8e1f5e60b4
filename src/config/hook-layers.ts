import { type HookScript, hookScriptsOf } from "./hook-scripts.js";
import { DEFAULT_HOOK_TIMEOUT_SECONDS, type HookEventName, type HooksConfig, hooksSchema } from "./hooks-schema.js";

/** Where a configuration value came from, lowest precedence first. */
type LayerSource = "default" | "user" | "project" | "env" | "flag";

/** One hook command as configured, with the layer it came from. */
export interface ConfiguredHook {
  event: HookEventName;
  /** A regular expression matched whole; undefined, `""` or `*`: everything. */
  matcher: string | undefined;
  command: string;
  timeoutSeconds: number;
  /** A project's hook may deny or ask; only one the user wrote (`~/.sylkrc`, environment, flags) may allow a call. */
  source: LayerSource;
  /** The file (or "environment", "command-line flags") that set it. */
  origin: string;
  /** The files it names inside the project, fingerprinted at load: one changed since is not run. */
  scripts: HookScript[];
}

type RawObject = Record<string, unknown>;
type Layer = { source: LayerSource; origin: string; raw: RawObject };

/**
 * Hooks add up across layers, as Claude Code merges its settings files: the
 * user's hooks and a trusted project's both run, where any other key of a
 * later layer replaces the earlier one. Returns each layer without `hooks`
 * (for the usual merge), the hooks of every layer joined per event (the
 * configuration's `hooks`), and every hook with its layer. Layers are
 * validated before they come here.
 */
export function mergeHookLayers(layers: readonly Layer[], root: string): { layers: Layer[]; merged: HooksConfig; hooks: ConfiguredHook[] } {
  const merged: HooksConfig = {};
  const hooks: ConfiguredHook[] = [];
  const rest = layers.map((layer) => {
    const { hooks: raw, ...others } = layer.raw;
    if (raw === undefined) return layer;
    const parsed = hooksSchema.parse(raw);
    for (const [event, groups] of Object.entries(parsed) as Array<[HookEventName, NonNullable<HooksConfig[HookEventName]>]>) {
      merged[event] = [...(merged[event] ?? []), ...groups];
      for (const group of groups) {
        for (const hook of group.hooks) {
          hooks.push({
            event,
            matcher: group.matcher,
            command: hook.command,
            timeoutSeconds: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
            source: layer.source,
            origin: layer.origin,
            scripts: hookScriptsOf(hook.command, root),
          });
        }
      }
    }
    return { ...layer, raw: others };
  });
  return { layers: rest, merged, hooks };
}
