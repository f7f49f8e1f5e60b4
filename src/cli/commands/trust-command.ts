import { realpathSync } from "node:fs";
import type { Command } from "commander";
import { TRUST_GATED_KEYS, type TrustVerdict } from "../../config/trust-gated-keys.js";
import { BadInputError } from "../../errors.js";
import type { AppliedTrust } from "../../project/folder-trust.js";
import { checkedSylkHome } from "../../project/project-paths.js";
import type { CliContext } from "../cli-context.js";
import { resolveRoot } from "../shared-options.js";
import { terminalField, terminalText } from "../terminal-text.js";
import { terminalJson } from "../../format/terminal-json.js";

interface TrustOptions {
  revoke?: boolean;
  forget?: boolean;
  list?: boolean;
  json?: boolean;
}

/**
 * `sylk trust [path]`: what the TUI's trust question records, for scripts.
 * Trust covers that folder's own `.sylkrc` with the gated settings it holds
 * now; `--revoke` refuses a folder and everything below it. Decisions live
 * under `$SYLK_HOME`, never in the repository.
 */
export function registerTrustCommand(program: Command, context: CliContext): void {
  program
    .command("trust")
    .description(`trust a folder's .sylkrc as it is now: it may then set ${TRUST_GATED_KEYS.join(", ")}`)
    .argument("[path]", "the folder (its own .sylkrc only, not the folders below it)", ".")
    .option("--revoke", "do not trust this folder or any folder below it")
    .option("--forget", "forget the decision made for this folder (the session asks again)")
    .option("--list", "list the folders with a decision")
    .option("--json", "with --list: print one JSON object")
    .action(async (path: string, options: TrustOptions) => {
      if ([options.revoke, options.forget, options.list].filter(Boolean).length > 1)
        throw new BadInputError("Use one of --revoke, --forget and --list.");
      // Loaded when the command runs: trust files are read with zod, which `sylk search` need not load. The .sylkrc is
      // read without the configuration's schemas, as the session's trust question reads it.
      const [{ trustGatedProjectSettings }, { FolderTrustStore }, { trustVerdict }] = await Promise.all([
        import("../../config/config-file.js"),
        import("../../project/folder-trust.js"),
        import("../../config/trust-gated-keys.js"),
      ]);
      const folder = realFolder(resolveRoot(context, path));
      // The store of the checked home: one inside the folder would let a repository ship its own decisions.
      const store = new FolderTrustStore(checkedSylkHome(folder, context.env).home);
      // Folder names and the project's keys may hold anything: every line is written escaped.
      const say = (lines: readonly string[]) => context.stdout.write(terminalText(lines.map((line) => `${line}\n`).join("")));
      const tell = (notices: readonly string[]) =>
        notices.forEach((notice) => {
          context.stderr.write(terminalText(`sylk: ${notice}\n`));
        });
      if (options.list) {
        const entries = store.list().map((entry) => ({
          ...entry,
          state: stateOf(entry, (folder) => trustVerdict(entry, trustGatedProjectSettings(folder, context.env))),
        }));
        if (options.json) context.stdout.write(`${terminalJson({ file: store.path, folders: entries })}\n`);
        else if (entries.length === 0) say(["No folder has been trusted or distrusted yet."]);
        else say(entries.map(listLine));
        return;
      }
      if (options.forget) {
        say([
          store.forget(folder)
            ? `Forgot the trust decision for ${terminalField(folder)}; \`sylk\` asks again if its .sylkrc needs trust.`
            : `There was no trust decision for ${terminalField(folder)}.`,
        ]);
        const inherited = store.decisionFor(folder);
        if (inherited) say([`It is still not trusted: ${terminalField(inherited.folder)} was refused with everything below it.`]);
        return;
      }
      if (options.revoke) {
        const { forgotten, notices } = store.revokeTree(folder, "sylk trust --revoke");
        tell(notices);
        say([
          `Not trusted: ${terminalField(folder)} and every folder below it; their .sylkrc settings ${TRUST_GATED_KEYS.join(", ")} are ignored.`,
          ...(forgotten.length > 0 ? [`Forgot the trust given to ${forgotten.map(terminalField).join(", ")}.`] : []),
        ]);
        return;
      }
      const settings = trustGatedProjectSettings(folder, context.env);
      tell(store.trust(folder, settings, "sylk trust"));
      const what =
        settings.length > 0
          ? `its .sylkrc settings ${settings.map((setting) => terminalField(setting.key)).join(", ")} are now honoured as they are`
          : `it sets nothing that needs trust now; should its .sylkrc set ${TRUST_GATED_KEYS.join(", ")} later, trust it again`;
      say([
        `Trusted ${terminalField(folder)} (this folder only, not the folders below it): ${what}.`,
        "If these settings change (a pull, an edit), Sylk ignores them until you run `sylk trust` again.",
        `Undo with: sylk trust --revoke ${terminalField(folder)}`,
      ]);
    });
}

/** How a listed decision stands now: a refusal covers its tree; a trust holds only while its folder's settings are unchanged. */
type ListedState = "not trusted" | "honoured" | "changed" | "unrecorded" | "unreadable";

function stateOf(entry: AppliedTrust, verdictFor: (folder: string) => TrustVerdict): ListedState {
  if (!entry.trusted) return "not trusted";
  try {
    const verdict = verdictFor(entry.folder);
    return verdict === "trusted" ? "honoured" : verdict === "changed" ? "changed" : "unrecorded";
  } catch {
    return "unreadable";
  }
}

function listLine(entry: AppliedTrust & { state: ListedState }): string {
  const when = `(${entry.at.slice(0, 10)}, ${entry.via})`;
  const folder = terminalField(entry.folder);
  switch (entry.state) {
    case "not trusted":
      return `not trusted  ${folder} and every folder below it  ${when}`;
    case "honoured":
      return `trusted      ${folder}  ${when}`;
    case "changed":
      return `trusted      ${folder}  ${when}: its settings changed since and are ignored; \`sylk trust ${folder}\` trusts them`;
    case "unrecorded":
      return `trusted      ${folder}  ${when}: recorded without its settings (an older Sylk), so they are ignored; \`sylk trust ${folder}\` trusts them`;
    case "unreadable":
      return `trusted      ${folder}  ${when}: its .sylkrc cannot be read now`;
  }
}

function realFolder(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw new BadInputError(`No such folder: ${path}`);
  }
}
