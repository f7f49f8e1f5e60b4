import { existsSync } from "node:fs";
import { join } from "node:path";
import { READ_ONLY_IN_PROJECT, type SandboxScope } from "./command-sandbox.js";

/** macOS's sandbox tool; part of the system, not something users install. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Whether this Mac has sandbox-exec. */
export function hasSandboxExec(): boolean {
  return existsSync(SANDBOX_EXEC);
}

/**
 * A Seatbelt profile for one command: everything is allowed but writing,
 * which only the project, the temporary directories and the other writable
 * directories allow, and never the project's protected paths; the network is
 * denied unless asked for. In Seatbelt the last matching rule wins, so the
 * order below is the precedence. Paths must be real paths (`/private/tmp`,
 * not `/tmp`): Seatbelt compares resolved paths.
 */
export function seatbeltProfile(scope: SandboxScope, temporaryDirectories: readonly string[]): string {
  const writable = [scope.root, ...temporaryDirectories, ...scope.writable].map((path) => `(subpath ${quote(path)})`);
  const readOnly = READ_ONLY_IN_PROJECT.map((path) => join(scope.root, path)).map((path) => `(subpath ${quote(path)})`);
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${writable.join(" ")} (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-write* ${readOnly.join(" ")})`,
  ];
  if (!scope.network) lines.push("(deny network*)");
  return `${lines.join("\n")}\n`;
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
