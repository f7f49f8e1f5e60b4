import { createHash } from "node:crypto";
import { join } from "node:path";
import * as z from "zod";
import { TrigramFeatures } from "../embedding/hashing-embedder.js";
import { NotRegularFileError, readRegularFile } from "../files/regular-file.js";
import { chunkFile } from "../parsing/chunker.js";
import { definitionLines, hasDefinitionPatterns, leadingComments } from "../parsing/definition-lines.js";
import { fallbackSymbols } from "../parsing/fallback-symbols.js";
import { BINARY_EXTENSIONS, decodeText, detectLanguage, extensionOf, looksBinary } from "../parsing/languages.js";
import type { ExtractedSymbol, TreeSitterExtractor } from "../parsing/tree-sitter-extractor.js";
import { isTestSnapshot } from "../search/document-kind.js";
import { trigramSketch } from "../search/trigram-sketch.js";
import { maskSecrets } from "../security/secrets.js";
import type { ChunkRecord } from "../store/file-records.js";
import { estimateTokens } from "../tokens/estimate-tokens.js";
import { ChunkFeaturizer } from "./chunk-featurizer.js";
import { copyOf } from "./string-copy.js";
import { errorMessage } from "../errors.js";
import { waitWhilePaused } from "./index-pause.js";

export const fileTaskSchema = z.object({
  root: z.string(),
  files: z.array(z.object({ path: z.string(), size: z.number(), mtimeMs: z.number(), priority: z.number() })),
  chunkLines: z.number().int().min(1),
  /** Dimensions of the built-in embedder, or null when another embedder fills vectors later. */
  embeddingDimensions: z.number().int().min(1).nullable(),
  /** A pool task's view of the run's `IndexPause` flag (shared memory): the worker waits between files while it is set. */
  pause: z
    .custom<Int32Array<SharedArrayBuffer>>((value) => value instanceof Int32Array && value.buffer instanceof SharedArrayBuffer)
    .optional(),
});

export type FileTask = z.infer<typeof fileTaskSchema>;
export type FileTaskItem = FileTask["files"][number];

/** A chunk as the index stores it (its terms from the path, symbols and content), and its embedding. */
export interface ProcessedChunk extends ChunkRecord {
  vector: Float32Array | null;
}

export interface ProcessedFile {
  path: string;
  size: number;
  mtimeMs: number;
  priority: number;
  status: "indexed" | "skipped" | "failed";
  reason: string | null;
  contentHash: string | null;
  language: string | null;
  lineCount: number;
  /** One line saying what the file is, from its first comment (or heading); used in hints. */
  description: string | null;
  chunks: ProcessedChunk[];
  symbols: ExtractedSymbol[];
  /** Secret-looking values masked before anything was kept. */
  secretsMasked: number;
  /** The trigram sketch of the file's bytes (`trigramSketch`), with which grep rules it out without reading it; null unless indexed. */
  sketch: Uint8Array | null;
}

/**
 * Files larger than this get their symbols from definition lines rather
 * than a tree-sitter parse. Parsing costs ≈ 0.2 ms per KB; on the biome
 * repository the 0.1 % of files above 128 KB (generated syntax trees,
 * benchmark fixtures) took 45 % of all parsing, ≈ 3 s of a cold index.
 * Hand-written files rarely get that large (vite's biggest, css.ts, is
 * 117 KB; at a 64 KB limit it and config.ts lost their parse and hybrid
 * recall@10 on vite went 0.860 → 0.853).
 */
export const MAX_PARSE_BYTES = 128 * 1024;
/** Chunks featurized between two looks at the pause flag: each takes a fraction of a millisecond. */
const PAUSE_CHECK_CHUNKS = 8;

/**
 * Everything the indexer needs from one file, computed off the main thread:
 * read, skip binaries, decode (UTF-8, else Latin-1), mask secrets, detect the
 * language, extract symbols and comments, chunk along symbols, and compute
 * full-text terms and built-in embeddings. Plain data in, plain data out.
 */
export async function processFile(
  task: Pick<FileTask, "root" | "chunkLines" | "embeddingDimensions" | "pause">,
  file: FileTaskItem,
  extractor: TreeSitterExtractor,
  featurizer: ChunkFeaturizer = featurizerFor(task),
): Promise<ProcessedFile> {
  const base: ProcessedFile = {
    ...file,
    status: "indexed",
    reason: null,
    contentHash: null,
    language: null,
    lineCount: 0,
    description: null,
    chunks: [],
    symbols: [],
    secretsMasked: 0,
    sketch: null,
  };
  if (BINARY_EXTENSIONS.has(extensionOf(file.path))) return { ...base, status: "skipped", reason: "binary" };

  let bytes: Buffer;
  try {
    // Synchronous on purpose: this runs on a worker thread, and one async read
    // costs several thread-pool round trips (measured ≈0.7 ms a file). Never
    // follows a link or waits on a FIFO that replaced the file since the scan.
    bytes = readRegularFile(join(task.root, file.path), { noFollow: true, listedAsRegular: true });
  } catch (error) {
    if (error instanceof NotRegularFileError) return { ...base, status: "skipped", reason: `${error.kind}, not a regular file` };
    return { ...base, status: "failed", reason: `unreadable: ${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}` };
  }
  const contentHash = createHash("sha256").update(bytes).digest("hex");
  if (looksBinary(bytes)) return { ...base, contentHash, status: "skipped", reason: "binary" };

  const language = detectLanguage(file.path);
  const decoded = decodeText(bytes);
  const masked = maskSecrets(decoded.text);
  const text = masked.text;

  let symbols: ExtractedSymbol[] = [];
  let comments = "";
  let reason: string | null = null;
  if (bytes.length > MAX_PARSE_BYTES && hasDefinitionPatterns(language)) {
    symbols = definitionLines(text, language);
    comments = leadingComments(text);
  } else if (extractor.supports(language)) {
    try {
      const extraction = await extractor.extract(text, language);
      symbols = extraction.symbols;
      comments = extraction.comments;
      if (extraction.hasError) reason = "syntax errors; symbols partly recovered";
    } catch (error) {
      reason = `parser failed (${errorMessage(error)}); chunked by lines`;
    }
  } else {
    symbols = fallbackSymbols(text, language);
  }

  // A pause is kept within a file too: parsing a large file and featurizing its chunks take a tenth of a second or more.
  waitWhilePaused(task.pause);
  const pathTokens = featurizer.pathTokens(file.path);
  const indexed = indexedPart(file.path, text, symbols, task.chunkLines);
  const chunks = chunkFile(indexed.text, indexed.symbols, { maxLines: indexed.maxLines }).map((chunk, ordinal): ProcessedChunk => {
    if (ordinal % PAUSE_CHECK_CHUNKS === 0) waitWhilePaused(task.pause);
    const features = featurizer.featurize(pathTokens, chunk.symbols, chunk.content);
    return {
      ordinal,
      startLine: chunk.startLine,
      endLine: chunk.endLine,
      kind: chunk.kind,
      symbols: chunk.symbols,
      content: chunk.content,
      tokenCount: estimateTokens(chunk.content),
      terms: features.terms,
      termCount: features.termCount,
      vector: features.vector,
    };
  });
  return {
    ...base,
    contentHash,
    language,
    reason,
    lineCount: countLines(text),
    description: describe(comments, symbols, language),
    chunks,
    symbols,
    secretsMasked: masked.findings.length,
    sketch: grepViewSketch(bytes, decoded.encoding === "utf-8" && masked.findings.length === 0),
  };
}

/**
 * How much of a test snapshot is indexed: its first 16,000 characters (cut
 * at a line end) as one chunk, the chunker's own character cap. A snapshot
 * is a test runner's recorded output, found by its name, the test that
 * wrote it and the input it opens with; the rest is generated (syntax trees,
 * formatted output, diagnostics) and stays with grep. On biome, whose 8,278
 * snapshots are 56 of its 110 MB of text and were 41 % of its chunks,
 * indexing them whole in 45-line chunks took about a tenth of a cold index's
 * CPU, for chunks that rank below the source they test (`NON_SOURCE_WEIGHT`).
 */
export const SNAPSHOT_INDEXED_CHARS = 16_000;

/** What a file is chunked from: a test snapshot's head in one chunk, else all of it in chunks of `chunkLines`. */
export function indexedPart(
  path: string,
  text: string,
  symbols: ExtractedSymbol[],
  chunkLines: number,
): { text: string; symbols: ExtractedSymbol[]; maxLines: number } {
  if (!isTestSnapshot(path)) return { text, symbols, maxLines: chunkLines };
  const lineEnd = text.length <= SNAPSHOT_INDEXED_CHARS ? text.length - 1 : text.lastIndexOf("\n", SNAPSHOT_INDEXED_CHARS - 1);
  const cut = text.slice(0, lineEnd >= 0 ? lineEnd + 1 : SNAPSHOT_INDEXED_CHARS);
  // A copy when cut short: the head's chunk is a slice of the text it is cut from, and must not keep the whole snapshot alive.
  const head = cut.length < text.length ? copyOf(cut) : text;
  const headLines = Math.max(1, countLines(head));
  return { text: head, symbols: symbols.filter((symbol) => symbol.endLine <= headLines), maxLines: Math.max(chunkLines, headLines) };
}

/**
 * The trigram sketch of the file as grep reads it: its bytes decoded as
 * UTF-8, with secret values masked (`GrepSearch`). No secret's trigrams are
 * kept: a sketch could otherwise confirm a guess at a value. For a UTF-8
 * file with no secret that is its bytes as they are; else grep's view is
 * made again (a Latin-1 file reads otherwise to grep, and a masked one has
 * its markers).
 */
function grepViewSketch(bytes: Buffer, bytesAreGrepView: boolean): Uint8Array {
  return trigramSketch(bytesAreGrepView ? bytes : Buffer.from(maskSecrets(bytes.toString("utf8")).text, "utf8"));
}

/** A featurizer for a task's embedding settings (workers keep one per thread instead). */
export function featurizerFor(task: Pick<FileTask, "embeddingDimensions">): ChunkFeaturizer {
  return new ChunkFeaturizer(task.embeddingDimensions === null ? null : new TrigramFeatures(task.embeddingDimensions));
}

/** A file that could not be processed: counted and reported, never fatal. */
export function failedFile(file: FileTaskItem, reason: string): ProcessedFile {
  return {
    ...file,
    status: "failed",
    reason,
    contentHash: null,
    language: null,
    lineCount: 0,
    description: null,
    chunks: [],
    symbols: [],
    secretsMasked: 0,
    sketch: null,
  };
}

/** What the embedder sees of a chunk: where it lives, what it defines, and its text. */
export function embeddingText(path: string, symbols: readonly string[], content: string): string {
  return `${path}\n${symbols.join(" ")}\n${content}`;
}

const DESCRIPTION_LENGTH = 160;

/** The first comment sentence that says something (not a licence header or a linter directive). */
function describe(comments: string, symbols: readonly ExtractedSymbol[], language: string): string | null {
  if (language === "markdown") return symbols[0]?.name.slice(0, DESCRIPTION_LENGTH) ?? null;
  for (const block of comments.split("\n\n").concat(comments.split("\n"))) {
    const line = block
      .replace(/^\s*(\/\*\*?|\*\/|\*|\/\/+|#+|"""|'''|--)/gm, " ")
      .replace(/\*\/\s*$/, "")
      .replace(/\s+/g, " ")
      .trim();
    if (line.length < 12 || /copyright|license|eslint|prettier|@ts-|noqa|pylint|SPDX|^!/i.test(line)) continue;
    return line.length > DESCRIPTION_LENGTH ? `${line.slice(0, DESCRIPTION_LENGTH - 1)}…` : line;
  }
  return null;
}

/** Lines in the text, a trailing newline ending the last one rather than starting another (counted without splitting: every file passes here). */
function countLines(text: string): number {
  if (text.length === 0) return 0;
  let newlines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) newlines++;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
