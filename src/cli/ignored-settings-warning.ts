import type { LoadedConfig } from "../config/load-config.js";
import { terminalField, terminalText } from "./terminal-text.js";

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
    // The keys are the project's own, and so may be anything.
    stderr.write(
      terminalText(
        `sylk: this folder is not trusted, so these settings in ${terminalField(ignored.file)} are ignored: ${terminalField(keys)}. ` +
          "If you trust this project, run `sylk trust` to use them.\n",
      ),
    );
  }
  for (const clamped of loaded.clampedSettings ?? []) {
    // Where it was set: a file's path, which may be anything.
    const origin = loaded.sources.get(clamped.key)?.origin;
    stderr.write(
      terminalText(
        `sylk: ${clamped.key} is ${clamped.requested}${origin ? ` (${terminalField(origin)})` : ""}, more than this machine can use; ` +
          `using ${clamped.used} (${clamped.limit}).\n`,
      ),
    );
  }
}
