import { formatPatch, structuredPatch } from "diff";
import * as z from "zod";
import { withSecretsMasked } from "./masked-patch.js";
import { looksBinary } from "../../parsing/languages.js";
import { readProjectFile } from "./read-project-file.js";
import { judgeAgainForWrite, judgeWritePath, writeJudged, writeTarget, type WritePath } from "./write-path.js";
import { defineTool, toolDescription, ToolError } from "./tool.js";

const schema = z.strictObject({
  path: z.string().describe("Path of the file to edit, relative to the project root."),
  old_string: z.string().min(1).describe("The exact text to replace, copied from the file (without line numbers)."),
  new_string: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().default(false).describe("Replace every occurrence instead of exactly one."),
});

export interface FileDiff {
  diff: string;
  added: number;
  removed: number;
}

/**
 * A unified diff (a/ and b/ paths, 3 lines of context) and its counts of added and removed lines.
 * `masked`: every line as it reads in the file with its secrets masked, for a diff that is kept or
 * sent to a model (an approval shows the real one).
 */
export function fileDiff(path: string, before: string, after: string, oldName = `a/${path}`, options: { masked?: boolean } = {}): FileDiff {
  const patch = structuredPatch(oldName, `b/${path}`, before, after, undefined, undefined, { context: 3 });
  const diff = formatPatch(options.masked ? withSecretsMasked(patch, before, after) : patch).replace(/^=+\n/, "");
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { diff, added, removed };
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count++;
  return count;
}

/** True when every newline in the text is part of a CRLF pair (and there is at least one). */
function usesCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1;
  return crlf > 0 && crlf === text.split("\n").length - 1;
}

interface PlannedEdit {
  target: WritePath;
  /** The file's bytes as read. */
  original: Buffer;
  shown: string;
  before: string;
  after: string;
  crlf: boolean;
  occurrences: number;
}

/** Reads the file at the judged target and works out the edit without writing it; a ToolError says why it cannot be made. */
function planEdit(input: z.infer<typeof schema>, target: WritePath): PlannedEdit {
  const shown = target.relative ?? target.real;
  const buffer = readProjectFile(target.real, input.path);
  if (buffer === undefined) {
    throw new ToolError(
      `File not found: ${input.path}. Check the path with list_files, or use write_file to create a new file.`,
      "missing_file",
    );
  }
  if (looksBinary(buffer)) throw new ToolError(`${input.path} is a binary file; edit_file only edits text.`);
  const original = buffer.toString("utf8");
  const crlf = usesCrlf(original);
  const lf = (text: string) => (crlf ? text.replace(/\r\n/g, "\n") : text);
  const before = lf(original);
  const oldString = lf(input.old_string);
  const newString = lf(input.new_string);
  if (oldString === newString) {
    throw new ToolError("old_string and new_string are identical, so there is nothing to change. Give the new text in new_string.");
  }
  const occurrences = countOccurrences(before, oldString);
  if (occurrences === 0) {
    throw new ToolError(
      `old_string was not found in ${shown}. Read the file with read_file first and copy the text exactly, ` +
        "including whitespace and indentation, without the line numbers.",
      "edit_miss",
    );
  }
  if (occurrences > 1 && !input.replace_all) {
    throw new ToolError(
      `old_string occurs ${occurrences} times in ${shown}. Include more surrounding lines so it matches exactly once, ` +
        "or set replace_all to true to change every occurrence.",
      "edit_miss",
    );
  }
  let after: string;
  if (input.replace_all) {
    after = before.split(oldString).join(newString);
  } else {
    const index = before.indexOf(oldString);
    after = before.slice(0, index) + newString + before.slice(index + oldString.length);
  }
  return { target, original: buffer, shown, before, after, crlf, occurrences };
}

export const editFileTool = defineTool({
  name: "edit_file",
  description: toolDescription(import.meta.url, "edit-file.txt"),
  schema,
  kind: "write",
  targets: (input, context) => ({ paths: [writeTarget(context, input.path)] }),
  preview(input, context) {
    const edit = planEdit(input, judgeWritePath(context, input.path));
    return { diff: fileDiff(edit.shown, edit.before, edit.after).diff };
  },
  async execute(input, context) {
    const edit = planEdit(input, judgeAgainForWrite(context, input.path));
    const written = edit.crlf ? edit.after.replace(/\n/g, "\r\n") : edit.after;
    writeJudged(edit.target, input.path, written);
    context.recordWrite?.({ absolute: edit.target.real, shown: edit.shown, before: edit.original, after: written });
    // The result is kept and sent to the model, so its diff has the file's secrets masked, context lines included.
    const { diff, added, removed } = fileDiff(edit.shown, edit.before, edit.after, undefined, { masked: true });
    const summary = `Edited ${edit.shown} (+${added} −${removed})`;
    const replaced = input.replace_all && edit.occurrences > 1 ? ` Replaced ${edit.occurrences} occurrences.` : "";
    return {
      output: `${summary}.${replaced}\n\n${diff}`,
      display: summary,
      diff,
      relatedFiles: edit.target.relative === undefined ? [] : [edit.target.relative],
    };
  },
});
