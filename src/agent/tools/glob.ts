import { statSync } from "node:fs";
import { join } from "node:path";
import picomatch from "picomatch";
import * as z from "zod";
import { defaultConfig } from "../../config/schema.js";
import { scanTree } from "../../indexer/scanner.js";
import { targetPath } from "./file-text.js";
import { resolveProjectPath } from "./project-paths-guard.js";
import { defineTool, toolDescription, ToolError, type ToolContext } from "./tool.js";

/** As many paths as a model reads at a glance; the answer says how many more matched. */
export const MAX_GLOB_RESULTS = 100;

const schema = z.strictObject({
  pattern: z.string().min(1).describe('Glob matched against paths relative to `path`, e.g. "**/*.ts".'),
  path: z.string().optional().describe("Directory to search, relative to the project root; the root when omitted."),
});

interface Match {
  /** Relative to the root (absolute for a directory outside it). */
  shown: string;
  mtimeMs: number;
}

/**
 * The files under the directory whose paths match, as the indexer sees the
 * tree: its excluded directories and patterns, every .gitignore and
 * .sylkignore, secret files left out, symbolic links not followed. Files too
 * large to index are still found by name.
 */
async function matchingFiles(
  context: ToolContext,
  pattern: string,
  requested: string | undefined,
): Promise<{ matches: Match[]; shown: string }> {
  const resolved = resolveProjectPath(context.root, requested ?? ".", context.extraDirectories);
  if (!statSync(resolved.absolute, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ToolError(`Directory not found: ${requested}. Call glob without a path to search the whole project.`);
  }
  const inRoot = resolved.relative !== undefined;
  const walkRoot = inRoot ? context.root : resolved.absolute;
  const prefix = resolved.relative ? `${resolved.relative}/` : "";
  const matches = picomatch(pattern, { dot: true });
  const config = { ...defaultConfig().index, maxFileSize: Number.MAX_SAFE_INTEGER };
  context.signal.throwIfAborted();
  const walk = await scanTree(walkRoot, config, { signal: context.signal });
  const found: Match[] = [];
  for (const directory of walk.changed) {
    for (const file of directory.files) {
      if (!file.path.startsWith(prefix) || !matches(file.path.slice(prefix.length))) continue;
      found.push({ shown: inRoot ? file.path : join(walkRoot, file.path), mtimeMs: file.mtimeMs });
    }
  }
  // Newest first: what was just worked on is what the model most often wants.
  found.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  return { matches: found, shown: inRoot ? resolved.relative || "the project root" : resolved.absolute };
}

export const globTool = defineTool({
  name: "glob",
  description: toolDescription(import.meta.url, "glob.txt"),
  schema,
  kind: "read",
  targets: (input) => ({ paths: [targetPath(input.path ?? ".")] }),
  async execute(input, context) {
    const { matches, shown } = await matchingFiles(context, input.pattern, input.path);
    if (matches.length === 0) {
      const hint = input.pattern.includes("/")
        ? ""
        : ` A pattern without "/" matches only files directly in the directory; use "**/${input.pattern}" for any depth.`;
      return { output: `No files match "${input.pattern}" in ${shown}.${hint}`, display: `No files match ${input.pattern}` };
    }
    const listed = matches.slice(0, MAX_GLOB_RESULTS).map((match) => match.shown);
    const leftOut = matches.length - listed.length;
    const note =
      leftOut > 0
        ? `\n\n[${leftOut} more file${leftOut === 1 ? "" : "s"} match, not shown: narrow the pattern or the path to see them.]`
        : "";
    return {
      output: listed.join("\n") + note,
      display: `Found ${matches.length} file${matches.length === 1 ? "" : "s"} matching ${input.pattern} in ${shown}`,
    };
  },
});
