import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
// Mini: this module is on every command's start-up path (see config/schema.ts).
import * as z from "zod/mini";

const decisionSchema = z.object({ trusted: z.boolean(), at: z.string(), via: z.string() });
const trustFileSchema = z.object({ version: z.literal(1), folders: z.record(z.string(), decisionSchema) });

export type TrustDecision = z.infer<typeof decisionSchema>;

/** The decision that applies to a folder, and the folder it was made for (the folder or an ancestor). */
export interface AppliedTrust extends TrustDecision {
  folder: string;
}

/**
 * Which folders the user trusts with their own settings (see
 * `trust-gated-keys.ts`). Kept in `$SYLK_HOME/trusted-folders.json`, never in
 * a repository: a project cannot vouch for itself. A decision covers the
 * folder and everything below it, and the nearest decision wins, so a
 * trusted `~/work` can hold one untrusted checkout.
 */
export class FolderTrustStore {
  private readonly file: string;

  constructor(sylkHome: string) {
    this.file = join(sylkHome, "trusted-folders.json");
  }

  get path(): string {
    return this.file;
  }

  /** The nearest decision for this absolute, symlink-resolved folder; undefined if none was ever made. */
  decisionFor(folder: string): AppliedTrust | undefined {
    const folders = this.read().folders;
    for (let current = folder; ; current = dirname(current)) {
      const decision = folders[current];
      if (decision) return { ...decision, folder: current };
      if (dirname(current) === current) return undefined;
    }
  }

  isTrusted(folder: string): boolean {
    return this.decisionFor(folder)?.trusted === true;
  }

  record(folder: string, trusted: boolean, via: string): void {
    const current = this.read();
    current.folders[folder] = { trusted, at: new Date().toISOString(), via };
    this.write(current);
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

  private read(): z.infer<typeof trustFileSchema> {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      return { version: 1, folders: {} };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const parsed = trustFileSchema.safeParse(value);
    // A damaged file trusts nothing: the safe reading. The next decision rewrites it.
    return parsed.success ? parsed.data : { version: 1, folders: {} };
  }

  private write(value: z.infer<typeof trustFileSchema>): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}
