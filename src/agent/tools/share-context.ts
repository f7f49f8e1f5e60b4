import * as z from "zod";
import { FileTooLargeError, NotRegularFileError, readRegularFile } from "../../files/regular-file.js";
import { looksBinary } from "../../parsing/languages.js";
import { maskSecrets } from "../../security/secrets.js";
import type { ContentEntry } from "../../store/content-types.js";
import type { ShareEntry } from "../../team/context-share.js";
import { resolveProjectPath } from "./project-paths-guard.js";
import { targetPath } from "./file-text.js";
import { defineTool, toolDescription, type ToolContext, type ToolDefinition } from "./tool.js";
import { errorMessage } from "../../errors.js";

/** Most sources one answer cites. */
const MAX_SHARED_SOURCES = 20;
/** Most lines one cited range may span (read_file's most). */
const MAX_SOURCE_LINES = 5_000;
/** Larger files are not read (read_file's limit). */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

const fileSource = z.strictObject({
  path: z.string().min(1).describe("File path relative to the project root."),
  start_line: z.number().int().min(1).describe("First line cited (1-based)."),
  end_line: z.number().int().min(1).describe("Last line cited (inclusive)."),
});
const entrySource = z.strictObject({
  entry_id: z.string().min(1).describe("The id of a stored entry (as search_history, retrieve_context and the history tools show them)."),
});

const schema = z.strictObject({
  answer: z.string().min(1).describe("Your answer to the consultation, complete on its own."),
  sources: z
    .array(z.union([fileSource, entrySource]))
    .max(MAX_SHARED_SOURCES)
    .default([])
    .describe(`What the answer rests on, most important first (at most ${MAX_SHARED_SOURCES}): file line ranges or stored entry ids.`),
  confidence: z.number().min(0).max(1).optional().describe("How sure you are of the answer, 0–1."),
  completeness: z.number().min(0).max(1).optional().describe("How fully the answer covers the question, 0–1."),
});

export type ShareContextInput = z.infer<typeof schema>;
export type ShareSource = ShareContextInput["sources"][number];

/** What taking the answer may say back: the problems to list, or nothing (void, so a callback with a statement body fits). */
// biome-ignore lint/suspicious/noConfusingVoidType: most submitters return nothing; void lets them be written as statements.
type SubmitAnswer = void | { problems?: readonly string[] };

export interface ShareContextDeps {
  /**
   * Takes the knowledge agent's answer for the consultation that is running.
   * It may return problems to tell the agent (a source that does not
   * resolve), which the confirmation lists.
   */
  submit(input: ShareContextInput, context: ToolContext): SubmitAnswer | Promise<SubmitAnswer>;
}

/**
 * `share_context(answer, sources, confidence, completeness)`: how a knowledge
 * agent ends a consultation. The host resolves
 * and fits what was submitted; the agent reads only a confirmation.
 */
export function createShareContextTool(deps: ShareContextDeps): ToolDefinition {
  return defineTool({
    name: "share_context",
    description: toolDescription(import.meta.url, "share-context.txt"),
    schema,
    kind: "read",
    // The files it cites, judged as reads are (deny rules, directories no tool may read).
    targets: (input) => ({ paths: input.sources.flatMap((source) => ("path" in source ? [targetPath(source.path)] : [])) }),
    async execute(input, context) {
      const receipt = await deps.submit(input, context);
      const problems = receipt?.problems ?? [];
      const shared = `Shared your answer (${input.answer.length} characters) with ${input.sources.length} source${input.sources.length === 1 ? "" : "s"}.`;
      return {
        output:
          problems.length === 0
            ? `${shared} The consultation is answered; stop here.`
            : [
                `${shared} These sources were not shared:`,
                ...problems.map((problem) => `- ${problem}`),
                "The consultation is answered; stop here.",
              ].join("\n"),
        display: `shared answer · ${input.sources.length} sources${problems.length > 0 ? ` · ${problems.length} not resolved` : ""}`,
        // Everything shared: the consultation ends here, without a closing model call that would re-send the
        // agent's whole window to say nothing the caller reads. Sources that did not resolve leave it a turn to see why.
        ...(problems.length === 0 ? { endsRun: { response: input.answer, note: "answered through share_context" } } : {}),
      };
    },
  });
}

export interface ResolveSourcesDeps {
  root: string;
  extraDirectories?: readonly string[];
  /** A stored entry by id. */
  getEntry(id: string): Pick<ContentEntry, "id" | "contentType" | "content" | "tokenCount"> | undefined;
  /** Stores a cited file excerpt as a `code_file` entry (in the knowledge agent's session) and returns it. */
  indexExcerpt(excerpt: { path: string; start_line: number; end_line: number; content: string }): Pick<ContentEntry, "id" | "tokenCount">;
}

export interface SourceError {
  /** Position in the submitted sources. */
  index: number;
  /** The source as cited (`path:a-b` or `entry <id>`). */
  source: string;
  message: string;
}

export interface ResolvedSources {
  /** In the order cited; a source cited twice appears once. */
  entries: ShareEntry[];
  errors: SourceError[];
}

/**
 * The sources as they are now: file lines byte for byte (secrets masked, as
 * read_file shows them; a range past the end stops at the last line) and
 * stored entries whole. A source that does not resolve is reported, never
 * invented.
 */
export function resolveSources(sources: readonly ShareSource[], deps: ResolveSourcesDeps): ResolvedSources {
  const entries: ShareEntry[] = [];
  const errors: SourceError[] = [];
  const seen = new Set<string>();
  sources.forEach((source, index) => {
    const cited = "entry_id" in source ? `entry ${source.entry_id}` : `${source.path}:${source.start_line}-${source.end_line}`;
    if (seen.has(cited)) return;
    seen.add(cited);
    try {
      entries.push("entry_id" in source ? storedEntry(source.entry_id, deps) : fileExcerpt(source, deps));
    } catch (error) {
      errors.push({ index, source: cited, message: errorMessage(error) });
    }
  });
  return { entries, errors };
}

function storedEntry(id: string, deps: ResolveSourcesDeps): ShareEntry {
  const entry = deps.getEntry(id);
  if (!entry) throw new Error(`no stored entry has the id ${id}`);
  return {
    id: entry.id,
    content_type: entry.contentType,
    source: `entry ${entry.id}`,
    content: entry.content,
    token_count: entry.tokenCount,
  };
}

function fileExcerpt(source: { path: string; start_line: number; end_line: number }, deps: ResolveSourcesDeps): ShareEntry {
  if (source.end_line < source.start_line) throw new Error(`end_line ${source.end_line} is before start_line ${source.start_line}`);
  if (source.end_line - source.start_line + 1 > MAX_SOURCE_LINES)
    throw new Error(`the range spans more than ${MAX_SOURCE_LINES} lines; cite the lines that matter`);
  const resolved = resolveProjectPath(deps.root, source.path, deps.extraDirectories ?? []);
  const path = resolved.relative ?? resolved.absolute;
  let bytes: Buffer;
  try {
    bytes = readRegularFile(resolved.real, { maxBytes: MAX_FILE_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`file not found: ${source.path}`);
    if (error instanceof NotRegularFileError) throw new Error(`${source.path} is ${error.kind}, not a file to cite`);
    if (error instanceof FileTooLargeError) throw new Error(`${source.path} is too large to cite (${error.size} bytes)`);
    throw error;
  }
  if (looksBinary(bytes)) throw new Error(`${source.path} is a binary file`);
  const lines = maskSecrets(bytes.toString("utf8")).text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  if (source.start_line > lines.length)
    throw new Error(`${source.path} has ${lines.length} lines; line ${source.start_line} does not exist`);
  const end = Math.min(source.end_line, lines.length);
  const content = lines.slice(source.start_line - 1, end).join("");
  const stored = deps.indexExcerpt({ path, start_line: source.start_line, end_line: end, content });
  return {
    id: stored.id,
    content_type: "code_file",
    source: `${path}:${source.start_line}-${end}`,
    content,
    token_count: stored.tokenCount,
  };
}
