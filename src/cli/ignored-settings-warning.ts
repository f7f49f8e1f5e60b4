import type { LoadedConfig } from "../config/load-config.js";

/**
 * What the configuration asked for and did not get, on stderr, one line
 * each: the project settings an untrusted folder's `.sylkrc` asked for (and
 * how to grant them), and settings brought down to what this machine can
 * use (and where they were set).
 */
export function warnAboutIgnoredSettings(loaded: LoadedConfig, stderr: NodeJS.WritableStream): void {
  const ignored = loaded.ignoredProjectSettings;
  if (ignored) {
    const keys = [...new Set(ignored.settings.map((setting) => setting.key))].join(", ");
    stderr.write(
      `sylk: this folder is not trusted, so these settings in ${ignored.file} are ignored: ${keys}. ` +
        "If you trust this project, run `sylk trust` to use them.\n",
    );
  }
  for (const clamped of loaded.clampedSettings ?? []) {
    const origin = loaded.sources.get(clamped.key)?.origin;
    stderr.write(
      `sylk: ${clamped.key} is ${clamped.requested}${origin ? ` (${origin})` : ""}, more than this machine can use; ` +
        `using ${clamped.used} (${clamped.limit}).\n`,
    );
  }
}
