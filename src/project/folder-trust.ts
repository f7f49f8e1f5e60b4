import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
// Mini: this module is on every command's start-up path (see config/schema.ts).
import * as z from "zod/mini";
import { gatedSettingsHash, type GatedSetting } from "../config/trust-gated-keys.js";
import { ensureSylkHome } from "./project-paths.js";

const decisionSchema = z.object({
  trusted: z.boolean(),
  at: z.string(),
  via: z.string(),
  /** A trusted decision: the hash of the gated settings it was made for (`gatedSettingsHash`). */
  settingsHash: z.optional(z.string()),
});
const trustFileSchema = z.object({ version: z.literal(2), folders: z.record(z.string(), decisionSchema) });
/** The first format recorded trust without the settings it was for: read, its trusted decisions vouch for nothing. */
const firstTrustFileSchema = z.object({
  version: z.literal(1),
  folders: z.record(z.string(), z.object({ trusted: z.boolean(), at: z.string(), via: z.string() })),
});

type TrustFile = z.infer<typeof trustFileSchema>;
export type TrustDecision = z.infer<typeof decisionSchema>;

/** The decision that applies to a folder, and the folder it was made for (the folder itself, or an ancestor that is not trusted). */
export interface AppliedTrust extends TrustDecision {
  folder: string;
}

/**
 * Which folders the user trusts with their own settings (see
 * `trust-gated-keys.ts`). Kept in `$SYLK_HOME/trusted-folders.json`, never in
 * a repository: a project cannot vouch for itself.
 *
 * Trust is narrow: a trusted decision covers that one folder's `.sylkrc`,
 * with the gated settings it held then (their hash). A refusal is broad: it
 * covers the folder and everything below it, unless a folder below has a
 * decision of its own, so `~/work/cloned` can be refused as a whole while
 * `~/work/cloned/tools` is trusted by name.
 */
export class FolderTrustStore {
  private readonly file: string;

  constructor(private readonly sylkHome: string) {
    this.file = join(sylkHome, "trusted-folders.json");
  }

  get path(): string {
    return this.file;
  }

  /** The decision for this absolute, symlink-resolved folder, or the nearest refusal above it; undefined if none. */
  decisionFor(folder: string): AppliedTrust | undefined {
    const folders = this.read().folders;
    const own = folders[folder];
    if (own) return { ...own, folder };
    let current = folder;
    while (dirname(current) !== current) {
      current = dirname(current);
      const decision = folders[current];
      if (decision && !decision.trusted) return { ...decision, folder: current };
    }
    return undefined;
  }

  /**
   * Trusts exactly this folder's `.sylkrc` with these gated settings (what
   * the user was shown): should they change, they are ignored again until
   * the user trusts the folder anew. Returns what the user should be told
   * (a `$SYLK_HOME` narrowed to 0700).
   */
  trust(folder: string, settings: readonly GatedSetting[], via: string): string[] {
    return this.recordFor(folder, { trusted: true, settingsHash: gatedSettingsHash(settings), via });
  }

  /** The user said no for this folder (and, having no decision of their own, the folders below it). */
  distrust(folder: string, via: string): string[] {
    return this.recordFor(folder, { trusted: false, via });
  }

  /**
   * Refuses a folder and everything below it: the trusted decisions below
   * are forgotten (they would otherwise still win for their folders).
   * Returns the folders whose trust was forgotten.
   */
  revokeTree(folder: string, via: string): { forgotten: string[]; notices: string[] } {
    const current = this.read();
    const below = folder.endsWith(sep) ? folder : folder + sep;
    const forgotten = Object.keys(current.folders).filter((path) => path.startsWith(below) && current.folders[path]?.trusted);
    for (const path of forgotten) delete current.folders[path];
    current.folders[folder] = { trusted: false, at: new Date().toISOString(), via };
    return { forgotten, notices: this.write(current) };
  }

  /** Forgets the decision made for exactly this folder; true when there was one. */
  forget(folder: string): boolean {
    const current = this.read();
    if (!current.folders[folder]) return false;
    delete current.folders[folder];
    this.write(current);
    return true;
  }

  list(): AppliedTrust[] {
    return Object.entries(this.read().folders)
      .map(([folder, decision]) => ({ ...decision, folder }))
      .sort((a, b) => (a.folder < b.folder ? -1 : 1));
  }

  private recordFor(folder: string, decision: Omit<TrustDecision, "at">): string[] {
    const current = this.read();
    current.folders[folder] = { ...decision, at: new Date().toISOString() };
    return this.write(current);
  }

  private read(): TrustFile {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return { version: 2, folders: {} };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const parsed = trustFileSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const first = firstTrustFileSchema.safeParse(value);
    // Decisions of the first format are kept as they were: a refusal still refuses, and a trust without
    // its settings' hash is shown (`sylk trust --list`) but honours nothing until the user trusts again.
    if (first.success) return { version: 2, folders: first.data.folders };
    // A damaged file trusts nothing: the safe reading. The next decision rewrites it.
    return { version: 2, folders: {} };
  }

  private write(value: TrustFile): string[] {
    const notices = ensureSylkHome(this.sylkHome);
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
    return notices;
  }
}
