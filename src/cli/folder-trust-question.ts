import { realpathSync } from "node:fs";
import { trustGatedProjectSettings } from "../config/config-file.js";
import { trustVerdict } from "../config/trust-gated-keys.js";
import { InterruptedError } from "../errors.js";
import { checkedSylkHome } from "../project/project-paths.js";
import type { CliContext } from "./cli-context.js";

/**
 * Before an interactive session opens: when the project's `.sylkrc` sets
 * trust-gated keys the user has not decided about (never asked, or trusted
 * with other settings than these), ask and remember the answer under
 * `$SYLK_HOME`. Nothing is asked when the file sets none of them, so most
 * projects never see the question; a folder the user said no to (or a
 * folder below one) is not asked again.
 */
export async function settleFolderTrust(root: string, context: CliContext): Promise<void> {
  const folder = realpathSync(root);
  const home = checkedSylkHome(folder, context.env).home;
  // Read once: the settings shown are the ones a "yes" is recorded for.
  const settings = trustGatedProjectSettings(folder, context.env);
  if (settings.length === 0) return;
  // Loaded only when there is something to decide: the store's schema is not worth a launch's time otherwise.
  const { FolderTrustStore } = await import("../project/folder-trust.js");
  const store = new FolderTrustStore(home);
  const decision = store.decisionFor(folder);
  const verdict = trustVerdict(decision, settings);
  if (verdict === "trusted" || (decision && !decision.trusted)) return;
  // The question is drawn where the painted prompt stood; the keys typed into that prompt are kept for the
  // prompt, never taken for an answer.
  await context.firstPaint?.setAside();
  // Loaded here: only a session that asks pays for Ink before the main screen.
  const { askFolderTrust } = await import("../tui/ask-folder-trust.js");
  const answer = await askFolderTrust({
    file: `${folder}/.sylkrc`,
    settings,
    ...(decision && verdict !== "untrusted" ? { trustedBefore: { at: decision.at, reason: verdict } } : {}),
    env: context.env,
    stdin: context.stdin as NodeJS.ReadStream,
    stdout: context.stdout as NodeJS.WriteStream,
    stderr: context.stderr as NodeJS.WriteStream,
  });
  if (answer === "cancelled") throw new InterruptedError("Cancelled before the session started.");
  const notices = answer ? store.trust(folder, settings, "prompt") : store.distrust(folder, "prompt");
  for (const notice of notices) context.stderr.write(`sylk: ${notice}\n`);
}
