import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type * as z from "zod/mini";
import { ConfigError } from "../errors.js";
import { type RawObject, readConfigFile } from "./config-file.js";
import { CONFIG_FILE_NAME } from "./defaults.js";
import { type ConfiguredHook, mergeHookLayers } from "./hook-layers.js";
import { clampToMachine, type ClampedSetting } from "./machine-limits.js";
import { configSchema, type SylkConfig } from "./schema.js";
import { trustVerdict, withoutTrustGatedKeys, type GatedSetting, type TrustRecord, type TrustVerdict } from "./trust-gated-keys.js";

export { CONFIG_FILE_NAME } from "./defaults.js";
export { trustGatedProjectSettings } from "./config-file.js";

/** Where a configuration value came from, lowest precedence first. */
export type ConfigSource = "default" | "user" | "project" | "env" | "flag";

export interface LoadedConfig {
  config: SylkConfig;
  /** Dotted key (e.g. `index.batchSize`) → the layer that set it. Keys absent here are defaults. */
  sources: Map<string, { source: ConfigSource; origin: string }>;
  /** Settings brought down to what this machine can use (see `machine-limits.ts`). */
  clampedSettings?: ClampedSetting[];
  /**
   * Settings of the project's `.sylkrc` left out (see `trust-gated-keys.ts`),
   * and why: the folder is not trusted, or these settings are not the ones it
   * was trusted with.
   */
  ignoredProjectSettings?: IgnoredProjectSettings;
  /** Every hook of every layer, with the layer it came from (absent: none configured). */
  hooks?: ConfiguredHook[];
  /**
   * Keys of the project's `.sylkrc` that are not settings of this Sylk, left
   * out: a shared repository's file may be written for a newer Sylk, and
   * would otherwise stop every command of an older one. (An unknown key in
   * the user's own file, a typo of theirs, stops the command.)
   */
  unknownProjectSettings?: { file: string; keys: string[] };
}

export interface IgnoredProjectSettings {
  file: string;
  settings: GatedSetting[];
  reason: Exclude<TrustVerdict, "trusted">;
}

export interface LoadConfigOptions {
  projectRoot: string;
  /** Defaults to `~/.sylkrc`. */
  userConfigPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Dotted keys from command-line flags, e.g. `{ "embedding.provider": "builtin" }`. */
  flags?: Record<string, unknown>;
  /**
   * The user's trust decision for this folder (`FolderTrustStore.decisionFor`):
   * its `.sylkrc` may set the trust-gated keys (endpoints, key variables,
   * permissions, sandbox, what writes outside the project) only when the
   * folder is trusted with exactly those settings. Untrusted unless given.
   */
  projectTrust?: TrustRecord;
}

/**
 * Resolves configuration in one place: schema defaults < `~/.sylkrc` <
 * project `.sylkrc` < `SYLK_*` environment < flags. Each file is validated on
 * its own so that an error names the file and the key; a malformed file is
 * fatal, never silently ignored. In a folder the user has not trusted, the
 * project file's trust-gated keys are left out (and reported), not validated.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const sources: LoadedConfig["sources"] = new Map();
  const layers: Array<{ source: ConfigSource; origin: string; raw: RawObject }> = [];
  let ignoredProjectSettings: LoadedConfig["ignoredProjectSettings"];
  let unknownProjectSettings: LoadedConfig["unknownProjectSettings"];

  const { user: userPath, project: projectPath } = configFilePaths(options);
  if (existsSync(userPath)) {
    const raw = readConfigFile(userPath);
    validateLayer(raw, userPath);
    layers.push({ source: "user", origin: userPath, raw });
  }
  // A project at the home directory has the user's own file as its project file: it is read once, as the user's.
  if (projectPath !== userPath && existsSync(projectPath)) {
    let raw = readConfigFile(projectPath);
    const split = withoutTrustGatedKeys(raw);
    const verdict = trustVerdict(options.projectTrust, split.ignored);
    if (verdict !== "trusted") {
      raw = split.kept;
      if (split.ignored.length > 0) ignoredProjectSettings = { file: projectPath, settings: split.ignored, reason: verdict };
    }
    const unknownKeys = withoutUnknownKeys(raw);
    if (unknownKeys.length > 0) unknownProjectSettings = { file: projectPath, keys: unknownKeys };
    validateLayer(raw, projectPath);
    layers.push({ source: "project", origin: projectPath, raw });
  }

  const envLayer = configFromEnv(env);
  validateLayer(envLayer.raw, "environment", envLayer.names);
  layers.push({ source: "env", origin: "environment", raw: envLayer.raw });

  const flagLayer = expandDottedKeys(options.flags ?? {});
  validateLayer(flagLayer, "command-line flags");
  layers.push({ source: "flag", origin: "command-line flags", raw: flagLayer });

  let merged: RawObject = {};
  for (const layer of layers) {
    for (const key of leafKeys(layer.raw)) sources.set(key, { source: layer.source, origin: layer.origin });
  }
  const hookLayers = mergeHookLayers(layers, resolve(options.projectRoot));
  for (const layer of hookLayers.layers) merged = deepMerge(merged, layer.raw);
  const result = configSchema.safeParse({ ...merged, hooks: hookLayers.merged });
  if (!result.success) throw configErrorFrom(result.error, "merged configuration");
  const { config, clamped } = clampToMachine(result.data);
  return {
    config,
    sources,
    ...(ignoredProjectSettings ? { ignoredProjectSettings } : {}),
    ...(clamped.length > 0 ? { clampedSettings: clamped } : {}),
    ...(hookLayers.hooks.length > 0 ? { hooks: hookLayers.hooks } : {}),
    ...(unknownProjectSettings ? { unknownProjectSettings } : {}),
  };
}

/**
 * Removes from `raw` every key the schema does not know, at any depth, and
 * returns them dotted (`index.futureSetting`). Only unknown keys go: a known
 * key with a wrong value is still an error, which names it.
 */
function withoutUnknownKeys(raw: RawObject): string[] {
  const removed: string[] = [];
  // Each pass removes what the schema reported; a removed key can hide no other, but the loop is bounded regardless.
  for (let pass = 0; pass < 4; pass++) {
    const result = configSchema.safeParse(raw);
    if (result.success) break;
    const unknown = result.error.issues.filter((issue) => issue.code === "unrecognized_keys");
    if (unknown.length === 0) break;
    for (const issue of unknown) {
      const parent = issue.path.reduce<unknown>((value, key) => (isRawObject(value) ? value[String(key)] : undefined), raw);
      if (!isRawObject(parent)) continue;
      for (const key of issue.keys) {
        delete parent[key];
        removed.push([...issue.path.map(String), key].join("."));
      }
    }
  }
  return removed;
}

function isRawObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where the user's and the project's `.sylkrc` are looked for (either may be missing; both are the same file at the home directory). */
export function configFilePaths(options: Pick<LoadConfigOptions, "projectRoot" | "userConfigPath" | "env">): {
  user: string;
  project: string;
} {
  const env = options.env ?? process.env;
  return {
    user: resolve(options.userConfigPath ?? join(env.HOME ?? homedir(), CONFIG_FILE_NAME)),
    project: resolve(options.projectRoot, CONFIG_FILE_NAME),
  };
}

function validateLayer(raw: RawObject, origin: string, envNames?: Map<string, string>): void {
  // Nothing set, nothing wrong (usually the environment and the flags): each parse builds every default.
  if (Object.keys(raw).length === 0) return;
  const result = configSchema.safeParse(raw);
  if (!result.success) throw configErrorFrom(result.error, origin, envNames);
}

function configErrorFrom(error: z.core.$ZodError, origin: string, envNames?: Map<string, string>): ConfigError {
  const issue = error.issues[0];
  if (!issue) return new ConfigError(`Invalid configuration in ${origin}.`);
  const unknownKeys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const basePath = issue.path.map(String);
  const key = [...basePath, ...unknownKeys.slice(0, 1)].join(".") || "(top level)";
  const where = envNames?.get(key) ? `${origin} variable ${envNames.get(key)}` : origin;
  const message = unknownKeys.length > 0 ? `unknown key` : issue.message;
  return new ConfigError(`Invalid configuration in ${where}: key "${key}": ${message}.`);
}

/**
 * `SYLK_<SECTION>_<KEY>` sets `section.key`, e.g. `SYLK_INDEX_BATCH_SIZE=50`
 * or `SYLK_EMBEDDING_PROVIDER=openai-compatible`. Values are parsed as JSON
 * when they parse, so numbers, booleans and arrays work.
 */
/** `observationalMemory` → `OBSERVATIONAL_MEMORY`, `maxTurns` → `MAX_TURNS`. */
function screamingSnake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

function configFromEnv(env: NodeJS.ProcessEnv): { raw: RawObject; names: Map<string, string> } {
  const raw: RawObject = {};
  const names = new Map<string, string>();
  for (const [section, sectionSchema] of Object.entries(configSchema.shape)) {
    const shape = sectionShape(sectionSchema);
    for (const key of Object.keys(shape)) {
      const name = `SYLK_${screamingSnake(section)}_${screamingSnake(key)}`;
      const value = env[name];
      if (value === undefined) continue;
      raw[section] ??= {};
      const target = raw[section] as RawObject;
      target[key] = parseEnvValue(value);
      names.set(`${section}.${key}`, name);
    }
  }
  return { raw, names };
}

function sectionShape(schema: z.ZodMiniType): Record<string, unknown> {
  // Sections are `z.object(...).strict().default(...)`, possibly refined; unwrap to the object shape.
  let current: unknown = schema;
  for (let depth = 0; depth < 5; depth++) {
    const candidate = current as { shape?: Record<string, unknown>; def?: { innerType?: unknown; in?: unknown } };
    if (candidate.shape) return candidate.shape;
    current = candidate.def?.innerType ?? candidate.def?.in;
    if (!current) break;
  }
  return {};
}

function parseEnvValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function expandDottedKeys(flags: Record<string, unknown>): RawObject {
  const out: RawObject = {};
  for (const [dotted, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    const parts = dotted.split(".");
    let target = out;
    for (const part of parts.slice(0, -1)) {
      target[part] ??= {};
      target = target[part] as RawObject;
    }
    target[parts[parts.length - 1] as string] = value;
  }
  return out;
}

function deepMerge(base: RawObject, overlay: RawObject, depth = 0): RawObject {
  const out: RawObject = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const existing = out[key];
    // A server defined again replaces the earlier one whole: a project's `url` merged into the user's `command` would be neither.
    if (depth === 0 && key === "mcpServers" && isPlainObject(existing) && isPlainObject(value)) out[key] = { ...existing, ...value };
    else out[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value, depth + 1) : value;
  }
  return out;
}

function leafKeys(raw: RawObject, prefix = ""): string[] {
  return Object.entries(raw).flatMap(([key, value]) => (isPlainObject(value) ? leafKeys(value, `${prefix}${key}.`) : [`${prefix}${key}`]));
}

function isPlainObject(value: unknown): value is RawObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
