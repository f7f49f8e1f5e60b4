import { lstatSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileKind } from "../../files/regular-file.js";
import { ReadOnlyFileError, replaceFile } from "../../files/replace-file.js";
import { resolveProjectPath, type ResolvedPath } from "./project-paths-guard.js";
import { ToolError, type ToolContext } from "./tool.js";

/** Where a write lands, judged once for the permission policy and again for the write itself. */
export interface WritePath extends ResolvedPath {
  /**
   * What permission rules and the protected-path check judge: the real
   * target relative to the root (a link `notes.txt -> .git/hooks/pre-commit`
   * is judged as the hook), or absolute in an allowed directory outside it.
   */
  judged: string;
}

/**
 * The one judgement of a write's path: links followed to their final
 * target, dangling or not (a link to a file that does not exist yet is a
 * write of that file), which must lie inside the project or an allowed
 * directory and must not be anything but a regular file when it exists. A
 * link to a regular file inside the project is an edit of that file.
 */
export function judgeWritePath(context: Pick<ToolContext, "root" | "extraDirectories">, requested: string): WritePath {
  const resolved = resolveProjectPath(context.root, requested, context.extraDirectories);
  const existing = lstatSync(resolved.real, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) {
    throw new ToolError(`${requested} is ${fileKind(existing)}, not a regular file; choose another path.`);
  }
  return { ...resolved, judged: resolved.relative ?? resolved.real };
}

/** The path as permission rules see it (see `WritePath.judged`): what a write tool's `targets` returns. */
export function writeTarget(context: Pick<ToolContext, "root" | "extraDirectories">, requested: string): string {
  return judgeWritePath(context, requested).judged;
}

/**
 * Judges the path again just before writing, and refuses when it now leads
 * somewhere other than what the permission policy allowed: a link swapped
 * in while the user read the approval dialog must not carry the approved
 * write into `.git/hooks`.
 */
export function judgeAgainForWrite(context: ToolContext, requested: string): WritePath {
  const target = judgeWritePath(context, requested);
  const permitted = context.permittedTargets?.paths?.[0];
  if (permitted !== undefined && permitted !== target.judged) {
    throw new ToolError(
      `${requested} changed while the call waited: it was ${permitted} when it was permitted and now leads to ${target.judged}. ` +
        "Nothing was written; call the tool again so that the new target is judged.",
    );
  }
  return target;
}

/** Writes the file at the judged real target (creating its directories), never following a link at the last step. */
export function writeJudged(target: WritePath, requested: string, content: string): void {
  mkdirSync(dirname(target.real), { recursive: true });
  try {
    replaceFile(target.real, content);
  } catch (error) {
    if (error instanceof ReadOnlyFileError)
      throw new ToolError(`${requested} is read-only; Sylk does not change its permissions. Ask the user to make it writable.`);
    throw error;
  }
}
