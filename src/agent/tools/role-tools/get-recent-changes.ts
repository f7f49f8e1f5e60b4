import * as z from "zod";
import { isSecretPath, maskSecrets } from "../../../security/secrets.js";
import type { FileChangeRecord } from "../../../store/handoff-records.js";
import { estimateTokens } from "../../../tokens/estimate-tokens.js";
import { targetPath } from "../file-text.js";
import { resolveProjectPath } from "../project-paths-guard.js";
import { defineTool, toolDescription, ToolError, type ToolDefinition } from "../tool.js";
import { clampBudget, OutputBudget, renderWithHeader } from "./output-budget.js";
import type { GitGate } from "../../sandbox/repository-integrity.js";
import { DIFF_GUARD, type GitError, runGit, type GitRunOptions } from "./read-only-git.js";
import { compareWithHead, type UncommittedChange } from "./uncommitted-changes.js";
import { errorMessage } from "../../../errors.js";

/**
 * What `get_recent_changes` reads besides git. The lead wires it as
 * `{ sessionChanges: () => <files_changed of the session tree>, availableTokens }`,
 * e.g. `services.handoffs.filesChanged(id)` for the root session and each child.
 */
export interface RecentChangesDeps {
  /**
   * Files this session tree changed (the `files_changed` records; paths
   * relative to the project root). Absent where there is no session (the
   * MCP server): the answer is git's alone, without that section.
   */
  sessionChanges?(): readonly FileChangeRecord[];
  /** Tokens the window can still take: the answer never asks for more. */
  availableTokens(): number;
  /** The session's token counter (default: the four-characters estimate). */
  countTokens?(text: string): number;
  /** Says when git must not run in the project (a command replaced `.git`). */
  gitGate: GitGate;
}

const DEFAULT_TOKENS = 1_500;
const MAX_TOKENS = 6_000;
const DIFF_LINES = 60;
const NUMSTAT_FILES = 10;

const schema = z.strictObject({
  path: z.string().min(1).default(".").describe('File or directory, relative to the project root ("." for the whole project).'),
  limit: z.number().int().min(1).max(20).default(5).describe("Most commits (1–20)."),
  include_diffs: z.boolean().default(false).describe("Add each commit's diff and the uncommitted diff, clipped to 60 lines each."),
  max_tokens: z.number().int().min(100).max(MAX_TOKENS).default(DEFAULT_TOKENS).describe(`Token budget (100–${MAX_TOKENS}).`),
});

interface Commit {
  hash: string;
  date: string;
  author: string;
  subject: string;
  numstat: string[];
  patch: string[];
}

/**
 * Recent commits touching a path, this session's own changes, and the
 * path's uncommitted changes, from git without letting the repository run
 * anything (see `read-only-git.ts`).
 */
export function createGetRecentChangesTool(deps: RecentChangesDeps): ToolDefinition<typeof schema> {
  const count = deps.countTokens ?? estimateTokens;
  return defineTool({
    name: "get_recent_changes",
    description: toolDescription(import.meta.url, "get-recent-changes.txt"),
    schema,
    kind: "read",
    targets: (input) => ({ paths: [targetPath(input.path)] }),
    async execute(input, context) {
      const refusal = deps.gitGate.gitRefusal(context.root);
      if (refusal !== undefined) throw new ToolError(refusal);
      const budget = clampBudget(input.max_tokens, deps.availableTokens());
      const resolved = resolveProjectPath(context.root, input.path);
      const path = resolved.relative === undefined || resolved.relative === "" ? "." : resolved.relative;
      const within = (candidate: string) => path === "." || candidate === path || candidate.startsWith(`${path}/`);
      const own = (deps.sessionChanges?.() ?? []).filter((change) => !change.path.startsWith("/") && within(change.path));
      const ownLines = own.map((change) => `- ${change.action} ${change.path} (+${change.linesAdded} −${change.linesRemoved})`);

      const body = new OutputBudget(budget - 40, count);
      let results = 0;
      let source = deps.sessionChanges ? "git log + session changes" : "git log";
      const gitOptions: GitRunOptions = { signal: context.signal, gate: deps.gitGate };
      const git = await gitState(context.root, gitOptions);
      let commits: Commit[] = [];
      let commitsNote: string | undefined;
      let uncommitted: UncommittedChange[] = [];
      let uncommittedNote: string | undefined;
      if (git.kind === "none") {
        source = deps.sessionChanges ? "session changes (no git)" : "no git";
        body.add(git.why);
      } else if (git.kind === "empty") {
        body.add("This git repository has no commits yet: there is no history to show.");
      } else {
        try {
          commits = await readCommits(context.root, path, input.limit, input.include_diffs, gitOptions);
        } catch (error) {
          commitsNote = `(git log failed: ${errorMessage(error)})`;
        }
        try {
          const compared = await compareWithHead(context.root, path, input.include_diffs, own, gitOptions);
          uncommitted = compared.changes;
          uncommittedNote = compared.note;
        } catch (error) {
          uncommittedNote = `(the working tree could not be compared with HEAD: ${errorMessage(error)})`;
        }
      }

      if (git.kind === "repository") {
        body.add(`## Commits touching ${path} (newest first)`);
        if (commitsNote) body.add(commitsNote);
        else if (commits.length === 0) body.add("(no commit touches this path)");
        // The commits take at most 60 % of the budget when the sections after them have something to say.
        const ceiling = own.length + uncommitted.length > 0 ? Math.floor((budget - 40) * 0.6) : undefined;
        for (const [index, commit] of commits.entries()) {
          if (!body.add(`- ${commit.hash.slice(0, 10)} ${commit.date} · ${commit.author} · ${maskSecrets(commit.subject).text}`, ceiling)) {
            body.note(`… ${commits.length - index} more commits not shown (raise max_tokens, up to ${MAX_TOKENS}, or lower limit).`);
            break;
          }
          results++;
          body.addAll(
            commit.numstat.map((line) => `    ${line}`),
            (more) => `    … ${more} more files`,
            ceiling,
          );
          if (input.include_diffs && commit.patch.length > 0) addDiff(body, commit.patch, `git show ${commit.hash.slice(0, 10)}`, ceiling);
        }
      }

      if (deps.sessionChanges) {
        body.add("");
        body.add(`## This session's changes under ${path}`);
        if (ownLines.length === 0) body.add("(none)");
        results += body.addAll(ownLines, (more) => `… ${more} more files not shown.`);
      }

      if (git.kind === "repository") {
        body.add("");
        body.add(`## Uncommitted changes under ${path} (working tree against HEAD)`);
        if (uncommittedNote) body.add(uncommittedNote);
        else if (uncommitted.length === 0) body.add("(none)");
        for (const [index, change] of uncommitted.entries()) {
          if (!body.add(`- ${change.status} ${change.path}${change.detail ? ` (${change.detail})` : ""}`)) {
            body.note(`… ${uncommitted.length - index} more changed files not shown.`);
            break;
          }
          results++;
          if (input.include_diffs && change.diff.length > 0) addDiff(body, change.diff, `read_file path "${change.path}"`);
        }
      }

      const { output, tokens } = renderWithHeader(source, results, body.truncated, body.lines, count);
      return {
        output,
        display: `${path}: ${results} results, ${tokens} tokens${body.truncated ? " (truncated)" : ""}`,
        relatedFiles: path === "." ? [] : [path],
      };
    },
  });
}

/** A diff in a fenced block, clipped to 60 lines (and to the budget). */
function addDiff(body: OutputBudget, lines: readonly string[], whereToSeeAll: string, ceiling?: number): void {
  if (!body.add("```diff", ceiling)) return;
  const shown = lines.slice(0, DIFF_LINES).map((line) => maskSecrets(line).text);
  const added = body.addAll(shown, (more) => `… ${more} more diff lines not shown (budget).`, ceiling);
  if (added === shown.length && lines.length > DIFF_LINES)
    body.note(`… ${lines.length - DIFF_LINES} more diff lines (clipped at ${DIFF_LINES}; see ${whereToSeeAll}).`);
  body.note("```");
}

type GitState = { kind: "none"; why: string } | { kind: "empty" } | { kind: "repository" };

async function gitState(root: string, git: GitRunOptions): Promise<GitState> {
  try {
    const inside = (await runGit(root, ["rev-parse", "--is-inside-work-tree"], git)).toString("utf8").trim();
    if (inside !== "true") return { kind: "none", why: "The project is not inside a git work tree: there is no commit history to show." };
  } catch (error) {
    const why = (error as GitError).message;
    return {
      kind: "none",
      why: /not a git repository/i.test(why)
        ? "The project is not a git repository: there is no commit history to show."
        : `git cannot read this project (${why}): there is no commit history to show.`,
    };
  }
  try {
    await runGit(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], git);
    return { kind: "repository" };
  } catch {
    return { kind: "empty" };
  }
}

async function readCommits(root: string, path: string, limit: number, withDiffs: boolean, git: GitRunOptions): Promise<Commit[]> {
  const args = [
    "log",
    ...DIFF_GUARD,
    "--no-color",
    `-n${limit}`,
    "--format=%x1e%H%x1f%aI%x1f%an%x1f%s",
    "--numstat",
    ...(withDiffs ? ["-p"] : []),
    "--",
    path,
  ];
  let text: string;
  try {
    text = (await runGit(root, args, git)).toString("utf8");
  } catch (error) {
    // A huge diff overflows the buffer: the history without diffs is still worth having.
    if (!withDiffs) throw error;
    return readCommits(root, path, limit, false, git);
  }
  return text
    .split("\x1e")
    .filter((record) => record.trim() !== "")
    .map((record) => {
      const lines = record.split("\n");
      const [hash = "", date = "", author = "", subject = ""] = (lines[0] ?? "").split("\x1f");
      const rest = lines.slice(1);
      const patchStart = rest.findIndex((line) => line.startsWith("diff --git "));
      const stats = (patchStart === -1 ? rest : rest.slice(0, patchStart)).filter((line) => line.trim() !== "");
      const numstat = stats.slice(0, NUMSTAT_FILES).map(renderNumstat);
      if (stats.length > NUMSTAT_FILES) numstat.push(`… ${stats.length - NUMSTAT_FILES} more files`);
      const patch = patchStart === -1 ? [] : withoutSecretFiles(trimEnd(rest.slice(patchStart)));
      return { hash, date: date.slice(0, 16).replace("T", " "), author, subject, numstat, patch };
    });
}

/** A commit's patch with the sections of secrets files (`.env`, keys) replaced by one line saying so. */
function withoutSecretFiles(patch: readonly string[]): string[] {
  const kept: string[] = [];
  let hiding = false;
  for (const line of patch) {
    if (line.startsWith("diff --git ")) {
      const path = /^diff --git a\/(.*) b\//.exec(line)?.[1] ?? "";
      hiding = isSecretPath(path);
      if (hiding) kept.push(`(diff of secrets file ${path} not shown)`);
    }
    if (!hiding) kept.push(line);
  }
  return kept;
}

function renderNumstat(line: string): string {
  const [added, removed, ...file] = line.split("\t");
  return added === "-" ? `binary ${file.join("\t")}` : `+${added} −${removed} ${file.join("\t")}`;
}

function trimEnd(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  return lines.slice(0, end);
}
