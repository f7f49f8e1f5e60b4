import * as z from "zod";
import { fileDiff } from "./edit-file.js";
import { looksBinary } from "../../parsing/languages.js";
import { readProjectFile } from "./read-project-file.js";
import { splitLines } from "./file-text.js";
import { judgeAgainForWrite, judgeWritePath, writeJudged, writeTarget } from "./write-path.js";
import { defineTool, toolDescription } from "./tool.js";

const schema = z.strictObject({
  path: z.string().describe("Path of the file to write, relative to the project root."),
  content: z.string().describe("The complete content of the file."),
});

/** The file's bytes, and its text unless it is binary (null); undefined for a new file. */
function previousContent(real: string, requested: string): { bytes: Buffer; text: string | null } | undefined {
  const bytes = readProjectFile(real, requested);
  if (bytes === undefined) return undefined; // a new file
  return { bytes, text: looksBinary(bytes) ? null : bytes.toString("utf8") };
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: toolDescription(import.meta.url, "write-file.txt"),
  schema,
  kind: "write",
  targets: (input, context) => ({ paths: [writeTarget(context, input.path)] }),
  preview(input, context) {
    const target = judgeWritePath(context, input.path);
    const shown = target.relative ?? target.real;
    const previous = previousContent(target.real, input.path);
    // An overwrite shows what it deletes too; a binary file has no lines to show.
    if (previous?.text === null) return {};
    return { diff: fileDiff(shown, previous?.text ?? "", input.content, previous === undefined ? "/dev/null" : undefined).diff };
  },
  async execute(input, context) {
    const target = judgeAgainForWrite(context, input.path);
    const shown = target.relative ?? target.real;
    const relatedFiles = target.relative === undefined ? [] : [target.relative];
    const previous = previousContent(target.real, input.path);
    if (previous?.text === input.content) {
      return { output: `${shown} already has this content; nothing was written.`, display: `Unchanged ${shown}`, relatedFiles };
    }
    writeJudged(target, input.path, input.content);
    context.recordWrite?.({ absolute: target.real, shown, before: previous?.bytes ?? null, after: input.content });
    const lines = splitLines(input.content).length;
    if (previous === undefined) {
      const summary = `Created ${shown} (${lines} line${lines === 1 ? "" : "s"})`;
      return {
        output: summary,
        display: summary,
        diff: fileDiff(shown, "", input.content, "/dev/null", { masked: true }).diff,
        relatedFiles,
      };
    }
    if (previous.text === null) {
      const summary = `Replaced binary file ${shown} with text (${lines} line${lines === 1 ? "" : "s"})`;
      return { output: summary, display: summary, relatedFiles };
    }
    // The result is kept and sent to the model: its diff has the secrets of both versions masked.
    const { diff, added, removed } = fileDiff(shown, previous.text, input.content, undefined, { masked: true });
    const summary = `Wrote ${shown} (+${added} −${removed})`;
    return { output: `${summary}\n\n${diff}`, display: summary, diff, relatedFiles };
  },
});
