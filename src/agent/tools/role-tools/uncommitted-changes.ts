import { createHash } from "node:crypto";
import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { join, sep } from "node:path";
import { structuredPatch } from "diff";
import { errorMessage } from "../../../errors.js";
import { readRegularFile } from "../../../files/regular-file.js";
import { looksBinary } from "../../../parsing/languages.js";
import { isSecretPath } from "../../../security/secrets.js";
import type { FileChangeRecord } from "../../../store/handoff-records.js";
import { DIFF_GUARD, runGit, type GitRunOptions } from "./read-only-git.js";

/** A tracked file that differs from HEAD, or a file this session created that HEAD lacks. */
export interface UncommittedChange {
  path: string;
  status: "modified" | "deleted" | "type changed" | "new";
  detail: string;
  diff: string[];
}

/** Tracked files under the path compared with HEAD; past this, the path is too wide to check. */
const MAX_TRACKED_FILES = 5_000;
/** Changed files whose diff is computed. */
const MAX_DIFFED_FILES = 30;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * The path's tracked files compared with HEAD in-process: `git ls-tree`
 * lists HEAD's blobs, each working file is hashed as git hashes a blob, and
 * a changed file is diffed against `git show HEAD:<path>`. No git command
 * here looks at the working tree, so none can run a filter or fsmonitor.
 * Files the session created and HEAD lacks are listed as new.
 */
export async function compareWithHead(
  root: string,
  path: string,
  withDiffs: boolean,
  own: readonly FileChangeRecord[],
  git: GitRunOptions,
): Promise<{ changes: UncommittedChange[]; note?: string }> {
  const listing = (await runGit(root, ["ls-tree", "-r", "-z", "-l", "HEAD", "--", path], git)).toString("utf8");
  const tracked = listing
    .split("\0")
    .filter((record) => record !== "")
    .map((record) => {
      const tab = record.indexOf("\t");
      const [mode = "", type = "", oid = "", size = ""] = record.slice(0, tab).split(/ +/);
      return { mode, type, oid, size: Number(size), path: record.slice(tab + 1) };
    })
    .filter((entry) => entry.type === "blob");
  if (tracked.length > MAX_TRACKED_FILES) {
    return { changes: [], note: `(${path} holds ${tracked.length} tracked files, too many to compare here; ask about a narrower path)` };
  }
  const changes: UncommittedChange[] = [];
  const known = new Set<string>();
  const realRoot = realpathSync(root);
  for (const entry of tracked) {
    known.add(entry.path);
    const absolute = join(root, entry.path);
    let stats: Stats;
    try {
      stats = lstatSync(absolute);
    } catch {
      changes.push({ path: entry.path, status: "deleted", detail: "", diff: [] });
      continue;
    }
    const isLink = entry.mode === "120000";
    // A tracked directory replaced by a link to elsewhere: its files are not the project's to read.
    if (isLink !== stats.isSymbolicLink() || (!isLink && !stats.isFile()) || (!isLink && !isInside(realRoot, absolute))) {
      changes.push({ path: entry.path, status: "type changed", detail: "", diff: [] });
      continue;
    }
    // A link's blob is its target; the target itself is never read. A file is read without following
    // or blocking: it may have become a link or a FIFO since the lstat.
    const current = isLink
      ? Buffer.from(readlinkSync(absolute))
      : stats.size === entry.size
        ? readRegularFile(absolute, { noFollow: true })
        : undefined;
    if (current !== undefined && gitBlobId(current, entry.oid.length) === entry.oid) continue;
    changes.push({ path: entry.path, status: "modified", detail: "", diff: [] });
  }
  let diffed = 0;
  for (const change of changes) {
    if (change.status !== "modified" || diffed >= MAX_DIFFED_FILES) continue;
    diffed++;
    try {
      await describeModification(root, change, withDiffs, git);
    } catch (error) {
      change.detail = `not diffed: ${errorMessage(error)}`;
    }
  }
  const kept = changes.filter((change) => change.detail !== "unchanged");
  for (const change of own) {
    if (change.action === "create" && !known.has(change.path) && exists(join(root, change.path))) {
      kept.push({ path: change.path, status: "new", detail: "not in HEAD; created in this session", diff: [] });
    }
  }
  return { changes: kept };
}

/** Line counts and, when asked, the diff against HEAD; "unchanged" when only line endings differ. */
async function describeModification(root: string, change: UncommittedChange, withDiffs: boolean, git: GitRunOptions): Promise<void> {
  const absolute = join(root, change.path);
  if (isSecretPath(change.path)) {
    change.detail = "secrets file; its content is not shown";
    return;
  }
  const stats = lstatSync(absolute);
  if (stats.isSymbolicLink()) {
    change.detail = `link now points to ${readlinkSync(absolute)}`;
    return;
  }
  if (stats.size > MAX_FILE_BYTES) {
    change.detail = "too large to diff here";
    return;
  }
  const before = await runGit(root, ["show", ...DIFF_GUARD, `HEAD:./${change.path}`], { ...git, maxBuffer: MAX_FILE_BYTES * 2 });
  const after = readRegularFile(absolute, { noFollow: true });
  if (looksBinary(before) || looksBinary(after)) {
    change.detail = "binary";
    return;
  }
  const oldText = before.toString("utf8").replace(/\r\n/g, "\n");
  const newText = after.toString("utf8").replace(/\r\n/g, "\n");
  if (oldText === newText) {
    change.detail = "unchanged";
    return;
  }
  const patch = structuredPatch(`a/${change.path}`, `b/${change.path}`, oldText, newText, "HEAD", "working tree", { context: 3 });
  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
      lines.push(line);
    }
  }
  change.detail = `+${added} −${removed}`;
  if (withDiffs) change.diff = lines;
}

/** The id git gives these bytes as a blob (sha1, or sha256 in a sha256 repository). */
function gitBlobId(bytes: Buffer, idLength: number): string {
  const hash = createHash(idLength === 64 ? "sha256" : "sha1");
  hash.update(`blob ${bytes.length}\0`);
  hash.update(bytes);
  return hash.digest("hex");
}

function isInside(realRoot: string, path: string): boolean {
  try {
    return realpathSync(path).startsWith(`${realRoot}${sep}`);
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
