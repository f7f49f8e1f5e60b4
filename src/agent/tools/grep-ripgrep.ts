import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join, sep } from "node:path";
import type { IndexConfig } from "../../config/schema.js";

/** Excluded directory names passed to rg as globs: those with no glob syntax, which rg would read as a pattern. */
const PLAIN_NAME = /^[\w.@+-]+$/;

export interface RipgrepRequest {
  /** The directory the paths are relative to: the project root, or a directory outside it that was named. */
  root: string;
  /** The directory searched, relative to `root` ('' for all of it). */
  under: string;
  /** A file holding none of these cannot match (`prefilterLiterals`). */
  literals: readonly string[];
  ignoreCase: boolean;
  config: IndexConfig;
}

/**
 * ripgrep, where it is on the PATH, as grep's lister: it walks and reads the
 * tree on all cores in native code, which is what a search without a
 * listing it can trust (a first index still running, or `sylk ask`, where
 * no watcher vouches for the tree) spent its time on. It only names the
 * files whose bytes hold one of the pattern's literals, read as ripgrep sees
 * a tree: the caller still judges each by the index's rules
 * (`classifyPaths`) and matches it with the JavaScript pattern on grep's
 * threads, so the answer is the one the built-in scan gives. For that,
 * ripgrep is asked for a superset: hidden files, binary files, files of any size, and none of
 * the ignore files Sylk does not read (`.ignore`, `.rgignore`, the global
 * git excludes, those above the root); `.gitignore` (which Sylk honours
 * even outside a git repository) and the excluded directories are left to
 * it, which is where the time is saved.
 */
export class Ripgrep {
  private constructor(readonly command: string) {}

  /** The `rg` on the PATH of `env`, or undefined (`SYLK_RIPGREP=0` turns it off: grep then lists the files itself). */
  static onPath(env: NodeJS.ProcessEnv): Ripgrep | undefined {
    if (env.SYLK_RIPGREP === "0") return undefined;
    const name = process.platform === "win32" ? "rg.exe" : "rg";
    for (const directory of (env.PATH ?? "").split(delimiter)) {
      if (directory === "") continue;
      try {
        accessSync(join(directory, name), constants.X_OK);
        return new Ripgrep(join(directory, name));
      } catch {}
    }
    return undefined;
  }

  /**
   * The files below `under` that may hold a match, relative to `root` and
   * '/'-separated; undefined when rg could not answer (it failed, or
   * `signal` was aborted), and the caller lists the files itself.
   * `onNames` is given them as rg writes them (it writes a few at a time
   * while it reads the tree), so that they can be matched meanwhile; the
   * list it resolves with is the one to trust.
   */
  filesHolding(request: RipgrepRequest, signal: AbortSignal, onNames?: (paths: string[]) => void): Promise<string[] | undefined> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      const child = spawn(this.command, ripgrepArguments(request), { cwd: request.root, stdio: ["ignore", "pipe", "ignore"], signal });
      const names: string[] = [];
      let partial = Buffer.alloc(0);
      child.stdout.on("data", (chunk: Buffer) => {
        // A name may be cut between two chunks: only what ends in a NUL is whole (and whole UTF-8).
        const bytes = partial.length > 0 ? Buffer.concat([partial, chunk]) : chunk;
        const end = bytes.lastIndexOf(0);
        partial = Buffer.from(bytes.subarray(end + 1));
        if (end < 0) return;
        const whole = namesIn(bytes.subarray(0, end));
        names.push(...whole);
        if (whole.length > 0) onNames?.(whole);
      });
      child.on("error", () => resolve(undefined));
      child.on("close", (code) => {
        // 1: no file holds a literal. 2: an error (an unreadable directory, a bad argument): not an answer to trust.
        if (code !== 0 && code !== 1) return resolve(undefined);
        const rest = namesIn(partial);
        if (rest.length > 0) onNames?.(rest);
        resolve([...names, ...rest]);
      });
    });
  }
}

/** The NUL-separated names rg wrote, relative and '/'-separated. */
function namesIn(bytes: Buffer): string[] {
  return bytes
    .toString("utf8")
    .split("\0")
    .filter((path) => path !== "")
    .map((path) =>
      path
        .replace(/^\.[\\/]/, "")
        .split(sep)
        .join("/"),
    );
}

function ripgrepArguments({ under, literals, ignoreCase, config }: RipgrepRequest): string[] {
  const excludedNames = config.excludePaths.map((path) => path.replace(/^\/+|\/+$/g, "")).filter((name) => PLAIN_NAME.test(name));
  return [
    "--files-with-matches",
    "--null",
    "--no-config",
    "--no-messages",
    "--hidden",
    "--text",
    "--no-ignore-dot",
    "--no-ignore-global",
    "--no-ignore-parent",
    "--no-require-git",
    ...(config.respectGitignore ? [] : ["--no-ignore-vcs"]),
    // No --max-filesize: it costs rg a stat of every file (a tenth of its time on biome), and the caller leaves out
    // the few files too large to index anyway.
    "--fixed-strings",
    ignoreCase ? "--ignore-case" : "--case-sensitive",
    ...[".git", ...excludedNames].flatMap((name) => ["--glob", `!${name}/`]),
    ...literals.flatMap((literal) => ["--regexp", literal]),
    "--",
    under === "" ? "." : under,
  ];
}
