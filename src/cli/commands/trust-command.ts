import { realpathSync } from "node:fs";
import type { Command } from "commander";
import { TRUST_GATED_KEYS } from "../../config/trust-gated-keys.js";
import { BadInputError } from "../../errors.js";
import { sylkHome } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

interface TrustOptions {
  revoke?: boolean;
  list?: boolean;
  json?: boolean;
}

/**
 * `sylk trust [path]`: what the TUI's trust question records, for scripts.
 * A trusted folder's `.sylkrc` may set the trust-gated keys; the decision
 * lives under `$SYLK_HOME`, never in the repository.
 */
export function registerTrustCommand(program: Command, context: CliContext): void {
  program
    .command("trust")
    .description(`trust a folder: its .sylkrc may then set ${TRUST_GATED_KEYS.join(", ")}`)
    .argument("[path]", "the folder (and everything below it)", ".")
    .option("--revoke", "forget the decision made for this folder")
    .option("--list", "list the folders with a decision")
    .option("--json", "with --list: print one JSON object")
    .action(async (path: string, options: TrustOptions) => {
      // Loaded when the command runs: configuration and trust files are read with zod, which `sylk search` need not load.
      const [{ trustGatedProjectSettings }, { FolderTrustStore }] = await Promise.all([
        import("../../config/load-config.js"),
        import("../../project/folder-trust.js"),
      ]);
      const store = new FolderTrustStore(sylkHome(context.env));
      if (options.list) {
        const folders = store.list();
        if (options.json) context.stdout.write(`${terminalJson({ file: store.path, folders })}\n`);
        else if (folders.length === 0) context.stdout.write("No folder has been trusted or distrusted yet.\n");
        else for (const entry of folders) context.stdout.write(`${entry.trusted ? "trusted    " : "not trusted"}  ${terminalField(entry.folder)}  (${entry.at.slice(0, 10)}, ${entry.via})\n`);
        return;
      }
      const folder = realFolder(resolveRoot(context, path));
      if (options.revoke) {
        const forgotten = store.forget(folder);
        context.stdout.write(forgotten ? `Forgot the trust decision for ${terminalField(folder)}.\n` : `There was no trust decision for ${terminalField(folder)}.\n`);
        const inherited = store.decisionFor(folder);
        if (inherited) context.stdout.write(`It still follows ${terminalField(inherited.folder)} (${inherited.trusted ? "trusted" : "not trusted"}).\n`);
        return;
      }
      store.record(folder, true, "sylk trust");
      const settings = trustGatedProjectSettings(folder, context.env);
      const what = settings.length > 0 ? `its .sylkrc settings ${settings.map((setting) => terminalField(setting.key)).join(", ")} are now honoured` : `its .sylkrc may now set ${TRUST_GATED_KEYS.join(", ")}`;
      context.stdout.write(`Trusted ${terminalField(folder)} and the folders below it: ${what}. Undo with: sylk trust --revoke ${terminalField(folder)}\n`);
    });
}

function realFolder(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw new BadInputError(`No such folder: ${path}`);
  }
}
