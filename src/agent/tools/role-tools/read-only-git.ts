import { execFile } from "node:child_process";
import type { GitGate } from "../../sandbox/repository-integrity.js";

/**
 * What goes before every git command Sylk runs on the user's repository.
 * The repository is untrusted: its `.git/config` may name programs, and git
 * runs some of them on its own. `core.fsmonitor=false` keeps a configured
 * fsmonitor hook from running where git would refresh the index;
 * `log.showSignature=false` keeps `gpg.program` from running for signed
 * commits; `--no-pager` keeps `core.pager` from running. Commands that show
 * diffs add `--no-ext-diff --no-textconv` (see `DIFF_GUARD`). Commands that
 * compare the working tree with the index (`git diff`, `git status`) may run
 * clean filters and are never run: uncommitted changes are diffed in-process.
 */
const GIT_GUARD: readonly string[] = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "log.showSignature=false",
  "-c",
  "core.quotePath=false",
  "-c",
  "color.ui=never",
  "--no-pager",
  "--literal-pathspecs",
];

/** For commands that print diffs or blobs: no external diff program, no textconv filter. */
export const DIFF_GUARD: readonly string[] = ["--no-ext-diff", "--no-textconv"];

const TIMEOUT_MS = 15_000;

export class GitError extends Error {
  constructor(
    message: string,
    /** git's exit code; undefined when git did not run (not installed, timed out, output too large). */
    readonly exitCode: number | undefined,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "GitError";
  }
}

export interface GitRunOptions {
  /** Refuses when git must not run in the project at all (a command replaced its `.git`). */
  gate: GitGate;
  signal?: AbortSignal;
  maxBuffer?: number;
}

/**
 * Runs `git <GIT_GUARD> <args>` in `root` without a shell and returns its
 * standard output as bytes. Git takes no lock it can skip
 * (`GIT_OPTIONAL_LOCKS=0`) and never prompts. Nothing runs when the gate
 * refuses: the promise is rejected with its reason.
 */
export function runGit(root: string, args: readonly string[], options: GitRunOptions): Promise<Buffer> {
  const refusal = options.gate.gitRefusal(root);
  if (refusal !== undefined) return Promise.reject(new GitError(refusal, undefined, ""));
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...GIT_GUARD, ...args],
      {
        cwd: root,
        encoding: "buffer",
        timeout: TIMEOUT_MS,
        maxBuffer: options.maxBuffer ?? 16 * 1024 * 1024,
        windowsHide: true,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", PAGER: "cat" },
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        const code = (error as { code?: unknown }).code;
        const text = stderr.toString("utf8").trim();
        const why = code === "ENOENT" ? "git is not installed" : text.split("\n")[0] || error.message;
        reject(new GitError(why, typeof code === "number" ? code : undefined, text));
      },
    );
  });
}
