import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { ToolDefinition } from "../../agent/tools/tool.js";
import type { FileChangeRecord } from "../../store/handoff-repository.js";

/** A status that takes longer than this is not worth taking around every command: tracking stops for the session. */
const MAX_STATUS_MS = 1_000;

type DirtyFiles = Map<string, { status: string; mtimeMs: number }>;

/**
 * What files a command changed, for the prepared context's "files changed":
 * the repository's dirty files (`git status`) before and after the
 * command, with their modification times. A file that turns dirty, changes
 * again while dirty, or goes, was changed by the command. Outside a git
 * repository, or where status is slow, commands are not tracked (edits
 * through the write tools always are).
 */
export class CommandChangeTracker {
  private enabled: boolean | undefined;

  constructor(private readonly root: string) {}

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
    if (this.enabled === false) return undefined;
    const started = Date.now();
    let text: string;
    try {
      text = execFileSync("git", ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], {
        cwd: this.root,
        encoding: "utf8",
        timeout: MAX_STATUS_MS * 5,
        stdio: ["ignore", "pipe", "ignore"],
        maxBuffer: 64 * 1024 * 1024,
      });
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
}

/** Files dirty after and not before (or changed again since), and files gone. */
export function changedBetween(before: DirtyFiles, after: DirtyFiles): FileChangeRecord[] {
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
