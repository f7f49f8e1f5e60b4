import type { LoadedConfig } from "../config/load-config.js";
import { terminalField, terminalText } from "./terminal-text.js";

/**
 * One line on stderr naming the project settings an untrusted folder's
 * `.sylkrc` asked for and did not get, and how to grant them.
 */
export function warnAboutIgnoredSettings(loaded: LoadedConfig, stderr: NodeJS.WritableStream): void {
  const ignored = loaded.ignoredProjectSettings;
  if (!ignored) return;
  const keys = [...new Set(ignored.settings.map((setting) => setting.key))].join(", ");
  // The keys are the project's own, and so may be anything.
  stderr.write(
    terminalText(
      `sylk: this folder is not trusted, so these settings in ${terminalField(ignored.file)} are ignored: ${terminalField(keys)}. ` +
        "If you trust this project, run `sylk trust` to use them.\n",
    ),
  );
}
