import * as z from "zod";
import { looksBinary } from "../../parsing/languages.js";
import { maskSecrets } from "../../security/secrets.js";
import { splitLines, targetPath } from "./file-text.js";
import { resolveProjectPath } from "./project-paths-guard.js";
import { readProjectFile } from "./read-project-file.js";
import { defineTool, toolDescription, ToolError } from "./tool.js";

const DEFAULT_LIMIT = 2000;
const MAX_LIMIT = 5000;
const MAX_LINE_LENGTH = 2000;
/** Larger files are refused outright: grep finds the lines worth reading. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

const schema = z.strictObject({
  path: z.string().describe("Path of the file, relative to the project root."),
  offset: z.number().int().min(1).default(1).describe("1-based number of the first line to read."),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe("How many lines to read (at most 5000)."),
});

export const readFileTool = defineTool({
  name: "read_file",
  description: toolDescription(import.meta.url, "read-file.txt"),
  schema,
  kind: "read",
  targets: (input) => ({ paths: [targetPath(input.path)] }),
  async execute(input, context) {
    const resolved = resolveProjectPath(context.root, input.path, context.extraDirectories);
    const shown = resolved.relative ?? resolved.absolute;
    const buffer = readProjectFile(resolved.real, input.path, { maxBytes: MAX_FILE_BYTES });
    if (buffer === undefined) {
      throw new ToolError(`File not found: ${input.path}. Use list_files or search_codebase to find the right path.`, "missing_file");
    }
    if (looksBinary(buffer)) {
      throw new ToolError(
        `${input.path} is a binary file; read_file only reads text. Use run_command with a suitable tool if you must inspect it.`,
      );
    }
    const lines = splitLines(maskSecrets(buffer.toString("utf8")).text);
    const relatedFiles = resolved.relative === undefined ? [] : [resolved.relative];
    if (lines.length === 0) return { output: `${shown} is empty.`, display: `Read ${shown} (empty)`, relatedFiles };
    if (input.offset > lines.length) {
      throw new ToolError(`offset ${input.offset} is past the end of ${input.path}, which has ${lines.length} lines.`);
    }
    const first = input.offset;
    const window = lines.slice(first - 1, first - 1 + input.limit);
    const last = first + window.length - 1;
    const body = window
      .map((line, index) => {
        const text =
          line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}… [line cut at ${MAX_LINE_LENGTH} characters]` : line;
        return `${String(first + index).padStart(6)}\t${text}`;
      })
      .join("\n");
    const partial = first > 1 || last < lines.length;
    const note =
      last < lines.length
        ? `\n\n[Showing lines ${first}-${last} of ${lines.length}. Call read_file with offset ${last + 1} to read more.]`
        : "";
    return {
      output: body + note,
      display: partial ? `Read ${shown} (lines ${first}-${last} of ${lines.length})` : `Read ${shown} (${lines.length} lines)`,
      relatedFiles,
    };
  },
});
