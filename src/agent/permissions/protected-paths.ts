/**
 * Files whose change can do more than change the project: git runs hooks
 * and `core.fsmonitor`/`core.hooksPath` commands from `.git`, and Sylk's own
 * settings (`.sylkrc`, `.sylk/`, `.sylkignore`) decide what the next run may
 * do and what it indexes. An edit to one of them is a way to widen
 * permissions later, so it is never covered by accept-edits, an allow rule or
 * an "always" answer: each change needs the user's explicit approval.
 */
const PROTECTED_SEGMENTS: ReadonlyArray<{ name: string; what: string; directory: boolean }> = [
  { name: ".git", what: "git's internals (hooks and config run commands)", directory: true },
  { name: ".sylk", what: "Sylk's project directory", directory: true },
  { name: ".sylkrc", what: "Sylk's settings (they decide what the agent may do)", directory: false },
  { name: ".sylkignore", what: "what Sylk indexes", directory: false },
];

/**
 * Why this path is protected, or undefined. `path` is relative to the project
 * root and '/'-separated, after symbolic links were resolved (a link must
 * not smuggle a write into `.git`). Matched at any depth (a nested
 * repository's `.git`, a sub-project's `.sylkrc`) and without regard to case,
 * because macOS and Windows file systems ignore it.
 */
export function protectedPathReason(path: string): string | undefined {
  const segments = path.toLowerCase().split("/");
  for (const [index, segment] of segments.entries()) {
    const match = PROTECTED_SEGMENTS.find((candidate) => candidate.name === segment);
    if (!match) continue;
    const last = index === segments.length - 1;
    // `.sylkrc/` or `.sylkignore/` as directories protect nothing real; a `.git` file (worktrees) is protected.
    if (match.directory || last) return `${path} is part of ${match.what}`;
  }
  return undefined;
}

/**
 * The protected ones among these paths, each with its reason. `gitRuns`:
 * what the repository's git runs from inside the project (`gitRunPaths`:
 * a `core.hooksPath` directory, a program its config names), protected
 * wherever it lies.
 */
export function protectedPaths(paths: readonly string[], gitRuns: readonly string[] = []): Array<{ path: string; reason: string }> {
  return paths.flatMap((path) => {
    const reason = protectedPathReason(path) ?? gitRunReason(path, gitRuns);
    return reason ? [{ path, reason }] : [];
  });
}

function gitRunReason(path: string, gitRuns: readonly string[]): string | undefined {
  const lower = path.toLowerCase();
  const run = gitRuns.find((candidate) => {
    const named = candidate.toLowerCase();
    return lower === named || lower.startsWith(`${named}/`);
  });
  return run === undefined ? undefined : `${path} is run by git (${run} is named in the repository's git config)`;
}
