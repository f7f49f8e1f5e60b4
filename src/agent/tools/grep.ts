import { stat } from "node:fs/promises";
import { basename, join } from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import { defaultConfig } from "../../config/schema.js";
import { fileKind, readRegularFileAsync } from "../../files/regular-file.js";
import { scanProject } from "../../indexer/scanner.js";
import { maskSecrets } from "../../security/secrets.js";
import { outsideHiddenDirectories, resolveProjectPath } from "./project-paths-guard.js";
import { looksBinary } from "../../parsing/languages.js";
import { splitLines, targetPath } from "./file-text.js";
import { defineTool, toolDescription, ToolError, type ToolContext } from "./tool.js";

const MAX_LINE_LENGTH = 300;

const schema = z.strictObject({
  pattern: z.string().min(1).describe("JavaScript regular expression, matched against each line."),
  path: z.string().optional().describe("Directory or file to search, relative to the project root; the whole project when omitted."),
  glob: z.string().min(1).optional().describe("Only search files matching this glob, e.g. \"*.ts\" or \"src/**/*.py\"."),
  ignore_case: z.boolean().default(false).describe("Match case-insensitively."),
  max_results: z.number().int().min(1).max(2000).default(200).describe("Stop after this many matching lines."),
});

interface Candidate {
  /** Relative to the root (absolute outside it): how the file is named in the answer. */
  shown: string;
  absolute: string;
  /** Relative to the searched directory, for the glob. */
  within: string;
}

/** The files the indexer would read under the path, or just the file when a file is named. */
async function candidates(context: ToolContext, requested: string | undefined): Promise<Candidate[]> {
  const resolved = resolveProjectPath(context.root, requested ?? ".", context.extraDirectories);
  const stats = await stat(resolved.absolute).catch(() => {
    throw new ToolError(`Not found: ${requested}. Call grep without a path to search the whole project.`);
  });
  if (stats.isFile()) {
    return [{ shown: resolved.relative ?? resolved.absolute, absolute: resolved.real, within: basename(resolved.absolute) }];
  }
  if (!stats.isDirectory()) throw new ToolError(`${requested} is ${fileKind(stats)}, not a file or directory; grep reads only regular files.`);
  const inRoot = resolved.relative !== undefined;
  const scanRoot = inRoot ? context.root : resolved.absolute;
  const prefix = resolved.relative ? `${resolved.relative}/` : "";
  const { files } = await scanProject(scanRoot, defaultConfig().index);
  return outsideHiddenDirectories(files, scanRoot, context.hiddenDirectories)
    .filter((file) => file.path.startsWith(prefix))
    .map((file) => ({
      shown: inRoot ? file.path : join(scanRoot, file.path),
      absolute: join(scanRoot, file.path),
      within: file.path.slice(prefix.length),
    }))
    .sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    throw new ToolError(
      `Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. ` +
        "grep takes JavaScript regex syntax; escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.",
    );
  }
}

function cut(line: string): string {
  return line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line;
}

export const grepTool = defineTool({
  name: "grep",
  description: toolDescription(import.meta.url, "grep.txt"),
  schema,
  kind: "read",
  targets: (input) => ({ paths: [targetPath(input.path ?? ".")] }),
  async execute(input, context) {
    const regex = compile(input.pattern, input.ignore_case);
    const globMatches = input.glob ? picomatch(input.glob, { dot: true, basename: !input.glob.includes("/") }) : undefined;
    const files = (await candidates(context, input.path)).filter((file) => !globMatches || globMatches(file.within));
    const results: string[] = [];
    const matchedFiles = new Set<string>();
    let more = false;
    for (const file of files) {
      if (context.signal.aborted) throw new ToolError("grep was cancelled.");
      // Only regular files: a FIFO planted in the tree (or swapped in after the scan) would hold the read forever.
      const buffer = await readRegularFileAsync(file.absolute).catch(() => undefined);
      if (!buffer || looksBinary(buffer)) continue;
      const text = buffer.toString("utf8");
      const lines = splitLines(text);
      const hits = lines.flatMap((line, index) => (regex.test(line) ? [index] : []));
      if (hits.length === 0) continue;
      const masked = splitLines(maskSecrets(text).text);
      matchedFiles.add(file.shown);
      for (const index of hits) {
        if (results.length === input.max_results) {
          more = true;
          break;
        }
        results.push(`${file.shown}:${index + 1}: ${cut(masked[index] ?? "")}`);
      }
      if (more) break;
    }
    const where = input.path ? ` in ${input.path}` : "";
    if (results.length === 0) {
      return {
        output: `No matches for /${input.pattern}/${input.ignore_case ? "i" : ""}${where}${input.glob ? ` (files matching ${input.glob})` : ""}.`,
        display: `No matches for ${input.pattern}`,
      };
    }
    const note = more
      ? `\n\n[Stopped at ${input.max_results} matches; there are more. Narrow the pattern, path or glob, or raise max_results.]`
      : "";
    const count = `${results.length}${more ? "+" : ""} match${results.length === 1 && !more ? "" : "es"}`;
    return {
      output: results.join("\n") + note,
      display: `Found ${count} in ${matchedFiles.size} file${matchedFiles.size === 1 ? "" : "s"}`,
      relatedFiles: [...matchedFiles],
    };
  },
});
