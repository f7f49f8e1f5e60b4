import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import * as z from "zod";
import { fileDiff } from "./edit-file.js";
import { resolveProjectPath, writeTarget } from "./project-paths-guard.js";
import { looksBinary } from "../../parsing/languages.js";
import { splitLines } from "./file-text.js";
import { defineTool, toolDescription, ToolError } from "./tool.js";

const schema = z.strictObject({
  path: z.string().describe("Path of the file to write, relative to the project root."),
  content: z.string().describe("The complete content of the file."),
});

/** The file's bytes, and its text unless it is binary (null); undefined for a new file. */
function previousContent(path: string, requested: string): { bytes: Buffer; text: string | null } | undefined {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return undefined; // a new file
  }
  if (!stats.isFile()) throw new ToolError(`${requested} exists and is not a regular file (a directory?); choose another path.`);
  const bytes = readFileSync(path);
  return { bytes, text: looksBinary(bytes) ? null : bytes.toString("utf8") };
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: toolDescription(import.meta.url, "write-file.txt"),
  schema,
  kind: "write",
  targets: (input, context) => ({ paths: [writeTarget(context, input.path)] }),
  preview(input, context) {
    const resolved = resolveProjectPath(context.root, input.path, context.extraDirectories);
    const shown = resolved.relative ?? resolved.absolute;
    const previous = previousContent(resolved.absolute, input.path);
    // An overwrite shows what it deletes too; a binary file has no lines to show.
    if (previous?.text === null) return {};
    return { diff: fileDiff(shown, previous?.text ?? "", input.content, previous === undefined ? "/dev/null" : undefined).diff };
  },
  async execute(input, context) {
    const resolved = resolveProjectPath(context.root, input.path, context.extraDirectories);
    const shown = resolved.relative ?? resolved.absolute;
    const relatedFiles = resolved.relative === undefined ? [] : [resolved.relative];
    const previous = previousContent(resolved.absolute, input.path);
    if (previous?.text === input.content) {
      return { output: `${shown} already has this content; nothing was written.`, display: `Unchanged ${shown}`, relatedFiles };
    }
    mkdirSync(dirname(resolved.absolute), { recursive: true });
    writeFileSync(resolved.absolute, input.content);
    context.recordWrite?.({ absolute: resolved.absolute, shown, before: previous?.bytes ?? null, after: input.content });
    const lines = splitLines(input.content).length;
    if (previous === undefined) {
      const summary = `Created ${shown} (${lines} line${lines === 1 ? "" : "s"})`;
      return { output: summary, display: summary, diff: fileDiff(shown, "", input.content, "/dev/null", { masked: true }).diff, relatedFiles };
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
