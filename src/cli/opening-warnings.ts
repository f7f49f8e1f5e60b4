import type { LoadedConfig } from "../config/load-config.js";
import { configWarnings } from "../format/config-warnings.js";
import { terminalText } from "./terminal-text.js";

/**
 * What a command says on stderr once the project is open: what opening
 * changed (a data directory narrowed to 0700), the project settings an
 * untrusted folder's `.sylkrc` asked for and did not get, with how to grant
 * them, the settings it has that this Sylk does not know, and settings
 * brought down to what this machine can use.
 */
export function printOpeningWarnings(
  opened: { loadedConfig: LoadedConfig; notices?: readonly string[] },
  stderr: NodeJS.WritableStream,
): void {
  for (const notice of opened.notices ?? []) stderr.write(terminalText(`sylk: ${notice}\n`));
  for (const warning of configWarnings(opened.loadedConfig)) stderr.write(terminalText(`sylk: ${warning}\n`));
}
