import { realpathSync } from "node:fs";
import { trustGatedProjectSettings } from "../config/load-config.js";
import { InterruptedError } from "../errors.js";
import { FolderTrustStore } from "../project/folder-trust.js";
import { sylkHome } from "../project/project-paths.js";
import type { CliContext } from "./cli-context.js";

/**
 * Before an interactive session opens: when the project's `.sylkrc` sets
 * trust-gated keys and the user never decided about this folder, ask once
 * and remember the answer under `$SYLK_HOME`. Nothing is asked when the file
 * sets none of them, so most projects never see the question.
 */
export async function settleFolderTrust(root: string, context: CliContext): Promise<void> {
  const folder = realpathSync(root);
  const store = new FolderTrustStore(sylkHome(context.env));
  if (store.decisionFor(folder)) return;
  const settings = trustGatedProjectSettings(folder, context.env);
  if (settings.length === 0) return;
  // Loaded here: only a session that asks pays for Ink before the main screen.
  const { askFolderTrust } = await import("../tui/ask-folder-trust.js");
  const answer = await askFolderTrust({
    file: `${folder}/.sylkrc`,
    settings,
    env: context.env,
    stdin: context.stdin as NodeJS.ReadStream,
    stdout: context.stdout as NodeJS.WriteStream,
    stderr: context.stderr as NodeJS.WriteStream,
  });
  if (answer === "cancelled") throw new InterruptedError("Cancelled before the session started.");
  store.record(folder, answer, "prompt");
}
