import { execFile } from "node:child_process";
import { withoutSecretVariables } from "../../../security/secret-variables.js";
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
 * `protocol.allow=never` (with `GIT_NO_LAZY_FETCH`, `GIT_ENV_GUARD`) keeps git
 * from fetching at all: a repository that says it is a partial clone has git
 * fetch a missing object from its "promisor" remote, and the remote's
 * `uploadpack` (or `core.sshCommand`) is a shell line of the repository's.
 */
const GIT_GUARD: readonly string[] = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "protocol.allow=never",
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

/** What Sylk's own git commands set in their environment: no fetch, no lock it can skip, no prompt, no pager. */
const GIT_ENV_GUARD: Readonly<Record<string, string>> = {
  GIT_NO_LAZY_FETCH: "1",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  PAGER: "cat",
};

/**
 * The environment of Sylk's own git commands: the user's without secret
 * variables (a filter or hook the guards miss would see no API key), with
 * `GIT_ENV_GUARD`.
 */
export function gitEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...withoutSecretVariables(env), ...GIT_ENV_GUARD };
}

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
 * standard output as bytes, in `gitEnvironment()`. Nothing runs when the gate
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
        env: gitEnvironment(),
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
