import * as z from "zod";
import { defaultConfig, type IndexConfig } from "../../config/schema.js";
import { targetPath } from "./file-text.js";
import { grepFiles, searchOfCandidates, type Candidate, type GrepIndex } from "./grep-files.js";
import type { Ripgrep } from "./grep-ripgrep.js";
import { StreamedMatching } from "./grep-streamed.js";
import { GrepThread, type GrepOutcome } from "./grep-thread.js";
import { defineTool, toolDescription, ToolError, type ToolOutput } from "./tool.js";
import { errorMessage } from "../../errors.js";

const schema = z.strictObject({
  pattern: z.string().min(1).describe("JavaScript regular expression, matched against each line."),
  path: z.string().optional().describe("Directory or file to search, relative to the project root; the whole project when omitted."),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.py".'),
  ignore_case: z.boolean().default(false).describe("Match case-insensitively."),
  max_results: z.number().int().min(1).max(2000).default(200).describe("Stop after this many matching lines."),
});

type GrepInput = z.infer<typeof schema>;

export interface GrepToolDeps {
  /** Where patterns run; threads of its own when absent. */
  thread?: GrepThread;
  /** The project's index settings: the files grep reads are those the indexer would read. Defaults when absent. */
  config?: IndexConfig;
  /** Lists the files without a walk, and narrows them to those that may hold the pattern's literals. */
  index?: GrepIndex;
  /** Lists the files that may hold the pattern's literals where the index would have to check the disk first. */
  ripgrep?: Ripgrep;
  /** Runs each search as work the user waits on (`ForegroundWork`: a first index in its own process pauses meanwhile). */
  foreground?: WaitedOn;
}

/** Runs work the user is waiting on; `ForegroundWork` in a session. */
export interface WaitedOn {
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** Checks the pattern here, so that a mistake is answered with a correction before any file is read. */
function checkPattern(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ToolError(
      `Invalid regular expression ${JSON.stringify(pattern)}: ${errorMessage(error)}. ` +
        "grep takes JavaScript regex syntax; escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.",
    );
  }
}

/**
 * `grep`: the model's pattern runs on threads of its own (`GrepThread`),
 * never on the thread that runs the session, so a pattern that backtracks
 * for ever is stopped after `FILE_BUDGET_MS` on one file with what it found
 * so far, and Esc stops it at once.
 */
export function createGrepTool(deps: GrepToolDeps = {}) {
  const { thread = new GrepThread(), config = defaultConfig().index, index, ripgrep, foreground } = deps;
  return defineTool({
    name: "grep",
    description: toolDescription(import.meta.url, "grep.txt"),
    schema,
    kind: "read",
    targets: (input) => ({ paths: [targetPath(input.path ?? ".")] }),
    async execute(input, context) {
      const flags = input.ignore_case ? "i" : "";
      checkPattern(input.pattern, flags);
      thread.warmUp();
      const search = async () => {
        const request = { path: input.path, glob: input.glob, pattern: input.pattern, ignoreCase: input.ignore_case };
        const limits = { pattern: input.pattern, flags, maxResults: input.max_results };
        // Files rg names are matched while it still reads the tree; a listed file is never one the call named.
        const streamed = ripgrep && new StreamedMatching(thread, { ...limits, maxFileBytes: config.maxFileSize }, context.signal);
        const files = await grepFiles(context, request, {
          thread,
          config,
          ...(index ? { index } : {}),
          ...(ripgrep ? { ripgrep } : {}),
          ...(streamed ? { onFound: streamed.found } : {}),
        });
        if (!files) throw new ToolError("grep was cancelled.");
        // A listed file grown past what the index reads since it was listed is passed over, as the walk would.
        const maxFileBytes = files[0]?.named ? undefined : config.maxFileSize;
        const whole = { ...limits, ...(maxFileBytes === undefined ? {} : { maxFileBytes }) };
        const outcome = streamed?.started
          ? await streamed.outcome(files, whole)
          : await thread.search(searchOfCandidates(whole, files), context.signal);
        if (outcome.end.kind === "cancelled") throw new ToolError("grep was cancelled.");
        return answer(input, files, outcome, thread.fileBudgetMs);
      };
      return foreground ? foreground.run(search) : search();
    },
  });
}

function answer(input: GrepInput, files: readonly Candidate[], outcome: GrepOutcome, budgetMs: number): ToolOutput {
  const results = outcome.hits.flatMap((hits) => hits.lines.map(([line, text]) => `${files[hits.file]?.shown}:${line}: ${text}`));
  const matchedFiles = outcome.hits.map((hits) => files[hits.file]?.shown as string);
  const slow = outcome.end.kind === "slow" ? files[outcome.end.file]?.shown : undefined;
  const more = outcome.end.kind === "done" && outcome.end.more;
  const shownPattern = `/${input.pattern}/${input.ignore_case ? "i" : ""}`;
  if (slow !== undefined) {
    const stopped =
      `grep stopped: the pattern ${shownPattern} took longer than ${budgetMs / 1000} s on ${slow}; simplify it ` +
      "(nested quantifiers such as (a+)+ or (.*)* can backtrack for ever on a line that almost matches), or narrow path or glob. " +
      `${slow} and the files after it were not searched${results.length > 0 ? "; the matches above were found before it" : ""}.`;
    return {
      output: results.length > 0 ? `${results.join("\n")}\n\n[${stopped}]` : stopped,
      display: `Stopped: ${shownPattern} took too long on ${slow}`,
      isError: true,
      ...(matchedFiles.length > 0 ? { relatedFiles: matchedFiles } : {}),
    };
  }
  const where = input.path ? ` in ${input.path}` : "";
  if (results.length === 0) {
    return {
      output: `No matches for ${shownPattern}${where}${input.glob ? ` (files matching ${input.glob})` : ""}.`,
      display: `No matches for ${input.pattern}`,
    };
  }
  const note = more
    ? `\n\n[Stopped at ${input.max_results} matches; there are more. Narrow the pattern, path or glob, or raise max_results.]`
    : "";
  const count = `${results.length}${more ? "+" : ""} match${results.length === 1 && !more ? "" : "es"}`;
  return {
    output: results.join("\n") + note,
    display: `Found ${count} in ${matchedFiles.length} file${matchedFiles.length === 1 ? "" : "s"}`,
    relatedFiles: matchedFiles,
  };
}
