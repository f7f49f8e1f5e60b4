import { existsSync } from "node:fs";
import type { SandboxScope } from "./command-sandbox.js";
import { GUARDED_NAMES } from "./nested-settings.js";
import type { HiddenPath } from "./read-denial.js";

/** macOS's sandbox tool; part of the system, not something users install. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Whether this Mac has sandbox-exec. */
export function hasSandboxExec(): boolean {
  return existsSync(SANDBOX_EXEC);
}

/** What the profile keeps read-only and unreadable (real paths). */
export interface SeatbeltProtection {
  /** Denied writes, whether they exist or not: path rules need nothing on disk. */
  readOnly: readonly string[];
  hidden: readonly HiddenPath[];
}

/**
 * A Seatbelt profile for one command: everything is allowed but writing,
 * which only the project, the temporary directories and the other writable
 * directories allow, and never the protected paths (nor a `.git` or Sylk
 * setting at any depth of the project, existing or not: a pattern covers
 * what bubblewrap can only cover when it exists); the hidden paths cannot
 * be read; the network is denied unless asked for. In Seatbelt the last
 * matching rule wins, so the order below is the precedence. Paths must be
 * real paths (`/private/tmp`, not `/tmp`): Seatbelt compares resolved paths.
 */
export function seatbeltProfile(scope: SandboxScope, temporaryDirectories: readonly string[], protection: SeatbeltProtection): string {
  const writable = [scope.root, ...temporaryDirectories, ...scope.writable].map((path) => `(subpath ${quote(path)})`);
  const readOnly = protection.readOnly.map((path) => `(subpath ${quote(path)})`);
  const pattern = guardedNamesPattern(scope.root);
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${writable.join(" ")} (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-write* ${[...readOnly, ...(pattern ? [`(regex #"${pattern}")`] : [])].join(" ")})`,
  ];
  if (protection.hidden.length > 0) {
    const hidden = protection.hidden.map(({ path, kind }) =>
      kind === "directory" ? `(subpath ${quote(path)})` : `(literal ${quote(path)})`,
    );
    lines.push(`(deny file-read* ${hidden.join(" ")})`);
  }
  if (!scope.network) lines.push("(deny network*)");
  return `${lines.join("\n")}\n`;
}

/**
 * `.git`, `.sylk`, `.sylkrc` and `.sylkignore` at any depth below the root
 * and anything inside them, in any case (macOS file systems ignore case).
 * Special characters are written as bracket expressions: a `#"…"` literal
 * has no escapes. A root with a quote, backslash or caret in its name gets
 * no pattern (the paths that exist are still denied by name).
 */
function guardedNamesPattern(root: string): string | undefined {
  if (/["\\^]/.test(root)) return undefined;
  const literal = (text: string) => text.replace(/[.$*+?(){}|[\]]/g, "[$&]");
  const anyCase = (name: string) =>
    [...name].map((character) => (character === "." ? "[.]" : `[${character.toLowerCase()}${character.toUpperCase()}]`)).join("");
  return `^${literal(root)}/(.*/)?(${GUARDED_NAMES.map(anyCase).join("|")})(/.*)?$`;
}

/** The `sandbox-exec` arguments that run `shell -c command` under the profile. */
export function sandboxExecArguments(shell: string, command: string, profile: string): string[] {
  return ["-p", profile, shell, "-c", command];
}

/** The existing real paths of the usual temporary directories. */
export function temporaryDirectoriesOf(candidates: readonly string[], realpath: (path: string) => string): string[] {
  return [...new Set(candidates.filter((path) => existsSync(path)).map(realpath))];
}

/** A Seatbelt string literal: backslashes and quotes escaped. */
function quote(path: string): string {
  return `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
