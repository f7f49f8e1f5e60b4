import type { LoadedConfig } from "../config/load-config.js";
import { configWarnings } from "../format/config-warnings.js";
import { terminalText } from "./terminal-text.js";

/**
 * What opening the project has to say, one sentence each: what opening
 * changed (a data directory narrowed to 0700), the project settings an
 * untrusted folder's `.sylkrc` asked for and did not get, with how to grant
 * them, the settings it has that this Sylk does not know, and settings
 * brought down to what this machine can use.
 */
export function openingWarnings(opened: { loadedConfig: LoadedConfig; notices?: readonly string[] }): string[] {
  return [...(opened.notices ?? []), ...configWarnings(opened.loadedConfig)];
}

/** A command's opening warnings on stderr, once the project is open (the interactive session says them in its transcript). */
export function printOpeningWarnings(
  opened: { loadedConfig: LoadedConfig; notices?: readonly string[] },
  stderr: NodeJS.WritableStream,
): void {
  for (const warning of openingWarnings(opened)) stderr.write(terminalText(`sylk: ${warning}\n`));
}
