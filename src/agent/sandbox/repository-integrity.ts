import { join, relative, sep } from "node:path";
import { gitLocations } from "./git-locations.js";
import { entryDigest, fileDigest, treeDigest } from "./path-digest.js";
import { isWithin } from "./sandbox-paths.js";

/**
 * What each protected thing looked like, by the name the user knows it by.
 * `entry`: the project's `.git` itself; `git`: what git reads and runs from
 * there; `settings`: Sylk's settings; `nested`: nested repositories' `.git`.
 */
export type Fingerprint = ReadonlyMap<string, { digest: string; part: "entry" | "git" | "settings" | "nested" }>;

/** What to look at besides the project's own `.git` and settings. */
export interface FingerprintScope {
  nestedRepositories: readonly string[];
  /** Sylk's own placeholders count as absent: they were not there before the command and are gone after it. */
  isPlaceholder(path: string): boolean;
}

export interface IntegrityReport {
  /** One phrase per change (".git was replaced", ".sylkrc was created"). */
  changes: string[];
  /** Sylk stopped running git in this project. */
  gitRefused: boolean;
}

/** Something that may forbid Sylk's own git invocations in a project. */
export interface GitGate {
  /** Why Sylk must not run git in `root` now, or undefined. */
  gitRefusal(root: string): string | undefined;
  /** Counts changes to git's configuration or hooks in `root`: a change means decisions taken on the old ones are stale. */
  gitChanges(root: string): number;
}

/**
 * Defence in depth around every command, sandboxed or not: a fingerprint of
 * what decides what runs later outside the sandbox (the project's `.git`,
 * git's configuration and hooks, Sylk's settings, nested repositories),
 * taken before the command and compared after it. A change is reported in
 * the command's result, which the model reads and the user sees. When
 * `.git` itself was replaced (renamed away and made again, removed, created,
 * or pointed elsewhere), Sylk runs no git of its own in that project for the
 * rest of the session: whatever git would read there may be an attacker's.
 */
export class RepositoryIntegrity implements GitGate {
  private readonly refusals = new Map<string, string>();
  private readonly changeCounts = new Map<string, number>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  fingerprint(root: string, scope: FingerprintScope): Fingerprint {
    const print = new Map<string, { digest: string; part: "entry" | "git" | "settings" | "nested" }>();
    const name = (path: string) => (isWithin(path, root) ? relative(root, path).split(sep).join("/") : path);
    const add = (path: string, part: "entry" | "git" | "settings" | "nested", digest: (path: string) => string) =>
      print.set(name(path), { digest: scope.isPlaceholder(path) ? "absent" : digest(path), part });
    const entry = join(root, ".git");
    add(entry, "entry", entryDigest);
    if (!scope.isPlaceholder(entry)) {
      const git = gitLocations(root, this.env);
      for (const directory of git.gitDirectories) add(join(directory, "commondir"), "git", fileDigest);
      for (const file of [...git.configFiles, ...git.programs]) add(file, "git", fileDigest);
      for (const directory of git.hooksDirectories) add(directory, "git", treeDigest);
    }
    add(join(root, ".sylkrc"), "settings", fileDigest);
    add(join(root, ".sylkignore"), "settings", fileDigest);
    add(join(root, ".sylk"), "settings", treeDigest);
    for (const path of scope.nestedRepositories) add(path, "nested", entryDigest);
    return print;
  }

  /** What changed between a fingerprint taken before a command and now; a replaced `.git` stops Sylk's git here. */
  check(root: string, before: Fingerprint, scope: FingerprintScope): IntegrityReport {
    const after = this.fingerprint(root, scope);
    const changes: string[] = [];
    let gitChanged = false;
    let entryChange: string | undefined;
    for (const [name, then] of before) {
      const now = after.get(name)?.digest ?? "absent";
      if (now === then.digest) continue;
      const change = describeChange(name, then.digest, now, then.part);
      changes.push(change);
      if (then.part === "entry") entryChange = change;
      if (then.part === "entry" || then.part === "git") gitChanged = true;
    }
    if (gitChanged) this.changeCounts.set(root, this.gitChanges(root) + 1);
    if (entryChange !== undefined && !this.refusals.has(root)) {
      this.refusals.set(
        root,
        `Sylk runs no git in this project for the rest of this session: a command ${entryChange}, so what git would read there (its configuration and hooks) ` +
          "may now run someone else's programs. Check .git (git config --list --show-origin, the hooks directory), then start a new session.",
      );
    }
    return { changes, gitRefused: entryChange !== undefined };
  }

  gitRefusal(root: string): string | undefined {
    return this.refusals.get(root);
  }

  gitChanges(root: string): number {
    return this.changeCounts.get(root) ?? 0;
  }
}

function describeChange(name: string, before: string, after: string, part: "entry" | "git" | "settings" | "nested"): string {
  if (before === "absent") return `created ${name}`;
  if (after === "absent") return `removed ${name}`;
  return part === "entry" || part === "nested" ? `replaced ${name}` : `changed ${name}`;
}

/** The sentences a command's result gets when protected paths changed. */
export function integrityNote(report: IntegrityReport): string {
  const what = `This command ${report.changes.join(", ")}.`;
  const why =
    " These decide what git and Sylk run later, outside the sandbox: tell the user, who should check them before running git or Sylk here.";
  return `${what}${why}${report.gitRefused ? " Sylk will run no git of its own in this project for the rest of the session." : ""}`;
}
