import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";

/** Words of a command line: split at blanks and the shell's operators, quotes taken off. */
const WORD = /[^\s;&|<>()`]+/g;

/**
 * The files inside the project a hook command names: each word with a `/`
 * (`./scripts/check.sh`, `node tools/hook.js`), `$SYLK_PROJECT_DIR/…` and
 * `$CLAUDE_PROJECT_DIR/…` included, relative to the project root. A script
 * named without a `/` (`python check.py`) is not seen.
 */
function projectFilesNamedBy(command: string, root: string): string[] {
  const files = new Set<string>();
  for (const raw of command.match(WORD) ?? []) {
    const word = raw.replace(/["']/g, "").replace(/^\$\{?(SYLK|CLAUDE)_PROJECT_DIR\}?/, root);
    if (!word.includes("/") || word.startsWith("$") || word.startsWith("~") || word.includes("://")) continue;
    const path = resolve(root, word);
    const inside = relative(root, path);
    if (inside !== "" && !inside.startsWith("..") && !isAbsolute(inside)) files.add(path);
  }
  return [...files];
}

/** A file a hook names inside the project, and its fingerprint when the configuration was loaded. */
export interface HookScript {
  path: string;
  digest: string;
}

/**
 * A hook runs outside the sandbox, so a script it names inside the project
 * is a way out of it: the agent (an accepted edit, a sandboxed command)
 * could change the script and have it run, unfenced, at the next tool
 * call. Its files are fingerprinted when Sylk loads its configuration, once
 * per process, before any agent runs.
 */
export function hookScriptsOf(command: string, root: string): HookScript[] {
  return projectFilesNamedBy(command, root).map((path) => ({ path, digest: digestOf(path) }));
}

/** The first of a hook's scripts that changed since they were fingerprinted (relative to the root), or undefined. */
export function changedHookScript(scripts: readonly HookScript[], root: string): string | undefined {
  const changed = scripts.find((script) => digestOf(script.path) !== script.digest);
  return changed === undefined ? undefined : relative(root, changed.path);
}

function digestOf(file: string): string {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    // Absent (or unreadable) is a state of its own: a script created later is a change.
    return "absent";
  }
}
