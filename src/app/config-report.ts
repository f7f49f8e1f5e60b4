import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE_NAME } from "../config/defaults.js";
import { configFilePaths, type LoadedConfig, trustGatedProjectSettings } from "../config/load-config.js";
import { DEFAULT_ANTHROPIC_MODEL, type SylkConfig } from "../config/schema.js";
import type { GatedSetting } from "../config/trust-gated-keys.js";
import { configWarnings } from "../format/config-warnings.js";
import { visible } from "../format/visible-text.js";
import { sylkPackageRoot } from "../package-root.js";
import { sylkHome } from "../project/project-paths.js";

/** The settings a user changes, in the order `/config` lists them. */
const SHOWN_KEYS: readonly string[] = [
  "model.provider",
  "model.name",
  "model.baseUrl",
  "context.windowTokens",
  "agent.type",
  "agent.maxTurns",
  "permissions.mode",
  "permissions.allow",
  "permissions.ask",
  "permissions.deny",
  "sandbox.enabled",
  "sandbox.network",
  "sandbox.writableDirectories",
  "index.maxFileSize",
  "index.respectGitignore",
  "index.excludePaths",
  "embedding.provider",
  "context.prefetch",
  "knowledge.enabled",
  "observationalMemory.enabled",
  "learning.enabled",
  "handoff.enabled",
];

/** The files the report names. */
export interface ConfigFiles {
  /** Where the user's and the project's `.sylkrc` are looked for (`configFilePaths`). */
  user: string;
  project: string;
  /** `$SYLK_HOME`, where Sylk keeps its data. */
  data: string;
  /** The bundled example, every key with its default. */
  example: string;
}

export interface ConfigReportInputs {
  loaded: LoadedConfig;
  files: ConfigFiles;
  /** The trust-gated settings the project's `.sylkrc` asks for (`trustGatedProjectSettings`). */
  projectGated: readonly GatedSetting[];
}

/** The example configuration that ships with Sylk: every key with its default and what it does. */
export function exampleConfigPath(): string {
  return join(sylkPackageRoot(), `${CONFIG_FILE_NAME}.example`);
}

/**
 * The configuration report of a project as `loaded` (with a session's flags,
 * when it has them): what `/config` and `sylk config` both print.
 */
export function projectConfigReport(loaded: LoadedConfig, root: string, env: NodeJS.ProcessEnv): string[] {
  return configReport({
    loaded,
    files: { ...configFilePaths({ projectRoot: root, env }), data: sylkHome(env), example: exampleConfigPath() },
    projectGated: trustGatedProjectSettings(root, env),
  });
}

/**
 * The effective settings that matter to a user, each with where it came
 * from, the files read (and whether the project's gated settings are
 * honoured), where Sylk keeps its data, and how to change them. Read-only.
 */
export function configReport({ loaded, files, projectGated }: ConfigReportInputs): string[] {
  const width = Math.max(...SHOWN_KEYS.map((key) => key.length)) + 2;
  const values = SHOWN_KEYS.map((key) => field(valueText(effectiveValue(loaded.config, key))));
  const valueWidth = Math.min(40, Math.max(...values.map((value) => value.length))) + 2;
  const settings = SHOWN_KEYS.map(
    (key, index) => `  ${key.padEnd(width)}${(values[index] ?? "").padEnd(valueWidth)}· ${sourceText(loaded, key)}`,
  );
  const warnings = configWarnings(loaded);
  return [
    "Settings (value · where it came from):",
    ...settings,
    "",
    "Files:",
    `  user     ${fileText(files.user)}`,
    // The user's own file, read once, is also the project file of a project at the home directory.
    ...(files.project === files.user ? [] : [`  project  ${projectFileText(files.project, loaded, projectGated)}`]),
    `  data     ${field(files.data)} (indexes, conversations, trust decisions)`,
    `  example  ${field(files.example)} (\`sylk config --example\` prints it)`,
    ...(warnings.length > 0 ? ["", "Warnings:", ...warnings.map((warning) => `  ${warning}`)] : []),
    "",
    "To change them:",
    "  ~/.sylkrc for every project, .sylkrc here for this one (JSON with comments; see .sylkrc.example): a project's permissions,",
    "  sandbox, endpoints and what it writes outside the project count only once you trust the folder (`sylk trust .`).",
    "  SYLK_<SECTION>_<KEY> sets one for a run (SYLK_MODEL_NAME=…, SYLK_PERMISSIONS_MODE=plan), and so do flags (--agent, --no-sandbox).",
    "  In a session: /model <name>, /permissions (rules and mode), Shift+Tab (the mode).",
  ];
}

/** What the session uses for a key left unset, where that is not the plain default (the model's name). */
function effectiveValue(config: SylkConfig, key: string): unknown {
  const [section = "", name = ""] = key.split(".");
  const value = (config as unknown as Record<string, Record<string, unknown>>)[section]?.[name];
  if (key === "model.name" && value === undefined && config.model.provider === "anthropic") return DEFAULT_ANTHROPIC_MODEL;
  return value;
}

function valueText(value: unknown): string {
  if (value === undefined) return "(unset)";
  if (Array.isArray(value)) {
    if (value.length === 0) return "(none)";
    return value.length > 3 ? `${value.slice(0, 3).join(", ")} and ${value.length - 3} more` : value.join(", ");
  }
  return String(value);
}

function sourceText(loaded: LoadedConfig, key: string): string {
  const source = loaded.sources.get(key);
  if (!source) return "default";
  if (source.source === "user" || source.source === "project") return field(source.origin);
  return source.origin;
}

function fileText(path: string): string {
  return `${field(path)} ${existsSync(path) ? "(read)" : "(none)"}`;
}

function projectFileText(path: string, loaded: LoadedConfig, gated: readonly GatedSetting[]): string {
  if (!existsSync(path)) return `${field(path)} (none)`;
  if (gated.length === 0) return `${field(path)} (read; it sets none of the settings that need trust)`;
  const keys = [...new Set(gated.map((setting) => setting.key))].join(", ");
  const ignored = loaded.ignoredProjectSettings !== undefined;
  return `${field(path)} (read; ${field(keys)} ${ignored ? "ignored: the folder is not trusted with them (see below)" : "honoured: you trusted this folder with them"})`;
}

/** A value or path from a file, which a project may have written: one line, control characters escaped. */
function field(text: string): string {
  return visible(text, { newlines: false, tabs: "escape" });
}
