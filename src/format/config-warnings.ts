import type { LoadedConfig } from "../config/load-config.js";
import { visible } from "./visible-text.js";

/** A file's path or a key, which a project may have chosen: one line, its control characters shown escaped. */
const field = (text: string): string => visible(text, { newlines: false, tabs: "escape" });

/**
 * What loading the configuration left out or changed, one sentence each, with
 * what to do: the project settings an untrusted folder's `.sylkrc` asked for
 * and did not get, the settings it has that this Sylk does not know, and
 * settings brought down to what this machine can use.
 * Said on stderr when a command opens the project, and by `sylk doctor`.
 */
export function configWarnings(loaded: LoadedConfig): string[] {
  return [...ignoredSettingsWarning(loaded), ...unknownSettingsWarning(loaded), ...clampedSettingsWarnings(loaded)];
}

function unknownSettingsWarning(loaded: LoadedConfig): string[] {
  const unknown = loaded.unknownProjectSettings;
  if (!unknown) return [];
  const keys = field(unknown.keys.join(", "));
  return [
    `${field(unknown.file)} has settings this Sylk does not know, which are ignored: ${keys}. ` +
      "They may be a newer Sylk's, or misspelt; `sylk config --example` lists every setting.",
  ];
}

function ignoredSettingsWarning(loaded: LoadedConfig): string[] {
  const ignored = loaded.ignoredProjectSettings;
  if (!ignored) return [];
  const keys = field([...new Set(ignored.settings.map((setting) => setting.key))].join(", "));
  const file = field(ignored.file);
  return [
    {
      untrusted: `this folder is not trusted, so these settings in ${file} are ignored: ${keys}. If you trust this project, run \`sylk trust .\` to use them.`,
      changed: `the settings in ${file} that need trust changed since you trusted this folder, so they are ignored: ${keys}. Review them; if you trust them, run \`sylk trust .\` to use them.`,
      unrecorded: `this folder was trusted by an older Sylk that did not record which settings, so these settings in ${file} are ignored: ${keys}. Review them; if you trust them, run \`sylk trust .\` to use them.`,
    }[ignored.reason],
  ];
}

function clampedSettingsWarnings(loaded: LoadedConfig): string[] {
  return (loaded.clampedSettings ?? []).map((clamped) => {
    const origin = loaded.sources.get(clamped.key)?.origin;
    return (
      `${clamped.key} is ${clamped.requested}${origin ? ` (${field(origin)})` : ""}, more than this machine can use; ` +
      `using ${clamped.used} (${clamped.limit}).`
    );
  });
}
