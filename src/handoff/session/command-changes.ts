import { execFileSync } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import type { GitGate } from "../../agent/sandbox/repository-integrity.js";
import { gitEnvironment } from "../../agent/tools/role-tools/read-only-git.js";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { FileChangeRecord } from "../../store/handoff-records.js";

/** A status that takes longer than this is not worth taking around every command: tracking stops for the session. */
const MAX_STATUS_MS = 1_000;

type DirtyFiles = Map<string, { status: string; mtimeMs: number }>;

/**
 * What files a command changed, for the prepared context's "files changed":
 * the repository's dirty files (`git status`) before and after the
 * command, with their modification times. A file that turns dirty, changes
 * again while dirty, or goes, was changed by the command. Outside a git
 * repository, or where status is slow, commands are not tracked (edits
 * through the write tools always are). Nor are they once `gitGate` says
 * git must not run here (a command replaced `.git`); a change to git's
 * configuration has it checked again.
 */
export class CommandChangeTracker {
  private enabled: boolean | undefined;
  /** `gitGate.gitChanges` when `enabled` was decided. */
  private decidedAt = 0;

  constructor(
    private readonly root: string,
    private readonly gitGate: GitGate,
  ) {}

  /** `run_command` with its changes reported after each run. */
  wrap(tool: ToolDefinition, onChanges: (changes: FileChangeRecord[]) => void): ToolDefinition {
    return {
      ...tool,
      execute: async (input, context) => {
        const before = this.dirtyFiles();
        const output = await tool.execute(input, context);
        const after = before && this.dirtyFiles();
        if (before && after) {
          const changes = changedBetween(before, after);
          if (changes.length > 0) onChanges(changes);
        }
        return output;
      },
    };
  }

  private dirtyFiles(): DirtyFiles | undefined {
    if (this.gitGate.gitRefusal(this.root) !== undefined) return undefined;
    if (this.gitGate.gitChanges(this.root) !== this.decidedAt) {
      this.decidedAt = this.gitGate.gitChanges(this.root);
      this.enabled = undefined;
    }
    if (this.enabled === false) return undefined;
    if (this.enabled === undefined && !this.repositoryConfigIsInert()) {
      this.enabled = false;
      return undefined;
    }
    const started = Date.now();
    let text: string;
    try {
      text = execFileSync(
        "git",
        [
          "-c",
          "core.fsmonitor=false",
          "-c",
          "protocol.allow=never",
          "status",
          "--porcelain=v1",
          "-z",
          "--untracked-files=all",
          "--no-renames",
          // A nested repository (a gitlink) is rehashed with its own configuration, which the check below does not read.
          "--ignore-submodules=all",
        ],
        {
          cwd: this.root,
          encoding: "utf8",
          env: gitEnvironment(),
          timeout: MAX_STATUS_MS * 5,
          stdio: ["ignore", "pipe", "ignore"],
          maxBuffer: 64 * 1024 * 1024,
        },
      );
    } catch {
      this.enabled = false;
      return undefined;
    }
    if (Date.now() - started > MAX_STATUS_MS) this.enabled = false;
    else this.enabled = true;
    const files: DirtyFiles = new Map();
    for (const record of text.split("\0")) {
      if (record.length < 4) continue;
      const status = record.slice(0, 2);
      const path = record.slice(3);
      let mtimeMs = -1;
      try {
        mtimeMs = statSync(join(this.root, path)).mtimeMs;
      } catch {
        // Deleted: its status says so.
      }
      files.set(path, { status, mtimeMs });
    }
    return files;
  }

  /**
   * `git status` runs programs a repository's own configuration names: an
   * fsmonitor hook, and clean filters for files it rehashes. The project is
   * untrusted (its `.git/config` may come with it in an archive), and this
   * status runs outside the sandbox, around every command. So command
   * tracking stays off when a config file inside the project defines
   * either; the user's own (global) filters, git-lfs say, are theirs.
   * `git config` itself runs nothing. Git names the repository's own files
   * relative to its top (`file:.git/config`, whichever folder Sylk was
   * started in), the user's by their absolute path; an absolute path inside
   * the repository (an included file) is the repository's too.
   */
  private repositoryConfigIsInert(): boolean {
    let text: string;
    try {
      text = execFileSync(
        "git",
        ["config", "--show-origin", "-z", "--get-regexp", "^(filter\\..*\\.(clean|smudge|process)|core\\.fsmonitor)$"],
        {
          cwd: this.root,
          encoding: "utf8",
          env: gitEnvironment(),
          timeout: MAX_STATUS_MS * 5,
          stdio: ["ignore", "pipe", "ignore"],
        },
      );
    } catch (error) {
      // Exit status 1: no such key anywhere, which is what we hope for.
      return (error as { status?: number }).status === 1;
    }
    // -z: "file:<origin>\0<key>\n<value>\0" per entry.
    const origins = text.split("\0").filter((_, index) => index % 2 === 0 && _.length > 0);
    const insides = [this.root, realpathOrSelf(this.root), ...this.repositoryTop()].map((path) => `${path}${sep}`);
    return !origins.some((origin) => {
      if (origin.startsWith("command line:")) return false; // the user's own `-c` or GIT_CONFIG_PARAMETERS
      if (!origin.startsWith("file:")) return true;
      const path = origin.slice("file:".length);
      return !isAbsolute(path) || insides.some((inside) => path.startsWith(inside));
    });
  }

  /** The repository's top folder, as written and as a real path; none when git cannot say. */
  private repositoryTop(): string[] {
    try {
      const top = execFileSync("git", ["rev-parse", "--show-toplevel"], {
        cwd: this.root,
        encoding: "utf8",
        env: gitEnvironment(),
        timeout: MAX_STATUS_MS * 5,
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
      return top === "" ? [] : [top, realpathOrSelf(top)];
    } catch {
      return [];
    }
  }
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Files dirty after and not before (or changed again since), and files gone. */
function changedBetween(before: DirtyFiles, after: DirtyFiles): FileChangeRecord[] {
  const changes: FileChangeRecord[] = [];
  for (const [path, now] of after) {
    const then = before.get(path);
    if (then && then.status === now.status && then.mtimeMs === now.mtimeMs) continue;
    const action = now.mtimeMs < 0 ? "delete" : now.status === "??" || now.status.includes("A") ? "create" : "modify";
    changes.push({ path, action, linesAdded: 0, linesRemoved: 0 });
  }
  // Dirty before and clean after: the command restored it (a checkout), which changed it too.
  for (const path of before.keys()) if (!after.has(path)) changes.push({ path, action: "modify", linesAdded: 0, linesRemoved: 0 });
  return changes;
}
