import { mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { lstatOrUndefined } from "./sandbox-paths.js";
import type { AbsentPath } from "./write-protection.js";

/** What a placeholder file says, should one ever be left behind: in the file's own comment syntax. */
function placeholderText(path: string): string {
  const note =
    "Sylk holds this place while a sandboxed command runs, so that the command cannot create it; Sylk removes it when the command ends.";
  return basename(path) === ".sylkrc" ? `// ${note}\n{}\n` : `# ${note}\n`;
}

interface Held {
  kind: AbsentPath["kind"];
  /** Commands running that rely on it. */
  count: number;
  device: number;
  inode: number;
}

/**
 * Bubblewrap can only make a path read-only by mounting over something that
 * exists, and a path that does not exist yet (a project without `.sylkrc`,
 * or without `.git`) would otherwise be the command's to create. So Sylk
 * creates an empty placeholder there, the sandbox binds it read-only, and
 * Sylk removes it when the last command relying on it ends, unless someone
 * outside the sandbox has made it theirs meanwhile (then it is no longer the
 * placeholder Sylk made, and stays). Commands that overlap share one
 * placeholder: the first creates it, the last removes it.
 */
export class Placeholders {
  private readonly held = new Map<string, Held>();
  private readonly removeAllOnExit = () => this.removeAll();
  private listening = false;

  /**
   * Creates (or shares) a placeholder for each absent path. Returns the
   * paths now held, to bind read-only, and those that turned out to exist
   * after all (created meanwhile by someone else), to bind as they are.
   */
  acquire(paths: readonly AbsentPath[]): { held: string[]; existing: string[] } {
    const held: string[] = [];
    const existing: string[] = [];
    for (const { path, kind } of paths) {
      const current = this.held.get(path);
      if (current && this.isOurs(path, current)) {
        current.count++;
        held.push(path);
        continue;
      }
      const made = create(path, kind);
      if (made === "exists") existing.push(path);
      else if (made) {
        this.held.set(path, { kind, count: 1, device: made.dev, inode: made.ino });
        held.push(path);
      }
    }
    this.listenForExit();
    return { held, existing };
  }

  /** One command that relied on these placeholders ended. */
  release(paths: readonly string[]): void {
    for (const path of paths) {
      const entry = this.held.get(path);
      if (!entry || --entry.count > 0) continue;
      this.held.delete(path);
      if (this.isOurs(path, entry)) remove(path, entry.kind);
    }
    this.listenForExit();
  }

  /** Whether this path is a placeholder Sylk holds now (the integrity check counts it as absent). */
  isPlaceholder(path: string): boolean {
    const entry = this.held.get(path);
    return entry !== undefined && this.isOurs(path, entry);
  }

  /** Sylk is ending: no command runs any more. */
  removeAll(): void {
    for (const [path, entry] of this.held) if (this.isOurs(path, entry)) remove(path, entry.kind);
    this.held.clear();
    this.listenForExit();
  }

  /** A process that ends while a command runs (a second Ctrl-C, a signal) leaves no placeholder behind. */
  private listenForExit(): void {
    const wanted = this.held.size > 0;
    if (wanted === this.listening) return;
    this.listening = wanted;
    if (wanted) process.on("exit", this.removeAllOnExit);
    else process.off("exit", this.removeAllOnExit);
  }

  /** The same file or directory Sylk created, still empty. */
  private isOurs(path: string, entry: Held): boolean {
    const stats = lstatOrUndefined(path);
    if (!stats || stats.dev !== entry.device || stats.ino !== entry.inode) return false;
    try {
      return entry.kind === "directory"
        ? stats.isDirectory() && readdirSync(path).length === 0
        : stats.isFile() && readFileSync(path, "utf8") === placeholderText(path);
    } catch {
      return false;
    }
  }
}

function create(path: string, kind: AbsentPath["kind"]): { dev: number; ino: number } | "exists" | undefined {
  try {
    if (kind === "directory") mkdirSync(path);
    else writeFileSync(path, placeholderText(path), { flag: "wx" });
  } catch (error) {
    // Anything else (a read-only parent, say) leaves nothing for the command to create either.
    return (error as NodeJS.ErrnoException).code === "EEXIST" ? "exists" : undefined;
  }
  const stats = lstatOrUndefined(path);
  return stats ? { dev: stats.dev, ino: stats.ino } : undefined;
}

function remove(path: string, kind: AbsentPath["kind"]): void {
  try {
    if (kind === "directory") rmdirSync(path);
    else unlinkSync(path);
  } catch {
    // Gone already, or no longer empty: either way it is not Sylk's to remove.
  }
}
