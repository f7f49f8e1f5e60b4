import type { LoadedConfig } from "../config/load-config.js";
import { terminalField, terminalText } from "./terminal-text.js";

/**
 * What a command says on stderr once the project is open: what opening
 * changed (a data directory narrowed to 0700), the project settings an
 * untrusted folder's `.sylkrc` asked for and did not get, with how to grant
 * them, and settings brought down to what this machine can use.
 */
export function printOpeningWarnings(opened: { loadedConfig: LoadedConfig; notices?: readonly string[] }, stderr: NodeJS.WritableStream): void {
  for (const notice of opened.notices ?? []) stderr.write(terminalText(`sylk: ${notice}\n`));
  warnAboutIgnoredSettings(opened.loadedConfig, stderr);
  warnAboutClampedSettings(opened.loadedConfig, stderr);
}

function warnAboutIgnoredSettings(loaded: LoadedConfig, stderr: NodeJS.WritableStream): void {
  const ignored = loaded.ignoredProjectSettings;
  if (!ignored) return;
  const keys = [...new Set(ignored.settings.map((setting) => setting.key))].join(", ");
  // The file's path and the keys are the project's own, and so may be anything.
  const file = terminalField(ignored.file);
  const listed = terminalField(keys);
  const message = {
    untrusted: `this folder is not trusted, so these settings in ${file} are ignored: ${listed}. If you trust this project, run \`sylk trust .\` to use them.`,
    changed: `the settings in ${file} that need trust changed since you trusted this folder, so they are ignored: ${listed}. Review them; if you trust them, run \`sylk trust .\` to use them.`,
    unrecorded: `this folder was trusted by an older Sylk that did not record which settings, so these settings in ${file} are ignored: ${listed}. Review them; if you trust them, run \`sylk trust .\` to use them.`,
  }[ignored.reason];
  stderr.write(terminalText(`sylk: ${message}\n`));
}

function warnAboutClampedSettings(loaded: LoadedConfig, stderr: NodeJS.WritableStream): void {
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
