import { statSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import { defaultConfig } from "../../config/schema.js";
import { scanProject } from "../../indexer/scanner.js";
import { outsideHiddenDirectories, resolveProjectPath } from "./project-paths-guard.js";
import { targetPath } from "./file-text.js";
import { defineTool, toolDescription, ToolError, type ToolContext } from "./tool.js";

const MAX_ENTRIES = 1000;

const schema = z.strictObject({
  pattern: z.string().min(1).default("**/*").describe('Glob matched against paths relative to `path`, e.g. "**/*.ts".'),
  path: z.string().optional().describe("Directory to list, relative to the project root; the root when omitted."),
});

export interface DirectoryFiles {
  /** Paths relative to the project root (absolute for a directory outside it), sorted. */
  paths: string[];
  /** Each path relative to the listed directory, index for index with `paths`. */
  withinDirectory: string[];
  /** How the directory is named in messages. */
  shown: string;
}

/**
 * The files under a directory the way `git ls-files --others --cached` would
 * see them: .gitignore and .sylkignore honoured (nested ones too, through the
 * scanner), node_modules and .git skipped, secret files left out, symbolic
 * links not followed. Large files are listed too.
 */
async function filesUnder(context: ToolContext, requested: string | undefined): Promise<DirectoryFiles> {
  const resolved = resolveProjectPath(context.root, requested ?? ".", context.extraDirectories);
  let isDirectory = false;
  try {
    isDirectory = statSync(resolved.absolute).isDirectory();
  } catch {
    throw new ToolError(`Directory not found: ${requested}. Call list_files without a path to see the project's files.`);
  }
  if (!isDirectory) throw new ToolError(`${requested} is a file, not a directory. Use read_file to read it.`);
  const config = {
    ...defaultConfig().index,
    excludePaths: [".git", "node_modules"],
    excludePatterns: [],
    maxFileSize: Number.MAX_SAFE_INTEGER,
  };
  const inRoot = resolved.relative !== undefined;
  const scanRoot = inRoot ? context.root : resolved.absolute;
  const scanned = {
    files: outsideHiddenDirectories(
      (await scanProject(scanRoot, config, { signal: context.signal })).files,
      scanRoot,
      context.hiddenDirectories,
    ),
  };
  const prefix = resolved.relative ? `${resolved.relative}/` : "";
  const paths: string[] = [];
  const withinDirectory: string[] = [];
  for (const file of scanned.files) {
    if (!file.path.startsWith(prefix)) continue;
    paths.push(inRoot ? file.path : join(resolved.absolute, file.path));
    withinDirectory.push(file.path.slice(prefix.length));
  }
  const order = paths.map((_, index) => index).sort((a, b) => ((paths[a] as string) < (paths[b] as string) ? -1 : 1));
  return {
    paths: order.map((index) => paths[index] as string),
    withinDirectory: order.map((index) => withinDirectory[index] as string),
    shown: resolved.relative === undefined ? resolved.absolute : resolved.relative || "the project root",
  };
}

export const listFilesTool = defineTool({
  name: "list_files",
  description: toolDescription(import.meta.url, "list-files.txt"),
  schema,
  kind: "read",
  targets: (input) => ({ paths: [targetPath(input.path ?? ".")] }),
  async execute(input, context) {
    const directory = await filesUnder(context, input.path);
    const matches = picomatch(input.pattern, { dot: true });
    const found = directory.paths.filter((_, index) => matches(directory.withinDirectory[index] as string));
    if (found.length === 0) {
      const hint = input.pattern.includes("/")
        ? ""
        : ` A pattern without "/" matches only files directly in the directory; use "**/${input.pattern}" for any depth.`;
      return {
        output: `No files match "${input.pattern}" in ${directory.shown}.${hint}`,
        display: `No files match ${input.pattern}`,
      };
    }
    const shown = found.slice(0, MAX_ENTRIES);
    const note =
      found.length > MAX_ENTRIES
        ? `\n\n[Showing the first ${MAX_ENTRIES} of ${found.length} files. Narrow the pattern or the path to see the rest.]`
        : "";
    return {
      output: shown.join("\n") + note,
      display: `Listed ${found.length} file${found.length === 1 ? "" : "s"} matching ${input.pattern} in ${directory.shown}`,
    };
  },
});
