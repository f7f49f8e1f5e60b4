import type { ExtractedSymbol } from "./tree-sitter-extractor.js";

export interface Chunk {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** `symbol` when the chunk holds whole definitions, `block` for code between them, `window` for a slice of a long one. */
  kind: "symbol" | "block" | "window";
  /** Names of the symbols that start inside the chunk. */
  symbols: string[];
  content: string;
}

export interface ChunkOptions {
  /** Target lines per chunk; longer definitions are split. */
  maxLines: number;
  /** A chunk never holds more characters than this unless one line does (minified files). */
  maxChars?: number;
}

interface Segment {
  start: number;
  end: number;
  kind: Chunk["kind"];
}

const DEFAULT_MAX_CHARS = 16_000;

/**
 * Splits a file into chunks whose line ranges follow symbol boundaries: a
 * definition is kept whole when it fits, split along its members (methods)
 * when it does not, and cut into windows only as a last resort. The comment
 * or blank lines just above a definition travel with it. Small neighbours are
 * packed together up to `maxLines`, so every line belongs to exactly one chunk.
 */
export function chunkFile(text: string, symbols: readonly ExtractedSymbol[], options: ChunkOptions): Chunk[] {
  const lines = new LineOffsets(text);
  if (lines.count === 1 && lines.length(1) === 0) return [];
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;

  const segments = segmentRange(1, lines.count, topLevel(symbols, 1, lines.count), symbols, options.maxLines);
  const chunks: Chunk[] = [];
  let current: Segment | undefined;
  let currentChars = 0;
  const flush = () => {
    if (!current) return;
    chunks.push(makeChunk(lines, current, symbols));
    current = undefined;
    currentChars = 0;
  };
  for (const segment of segments) {
    const chars = lines.chars(segment.start, segment.end);
    const fits =
      current !== undefined &&
      segment.end - current.start + 1 <= options.maxLines &&
      currentChars + chars <= maxChars &&
      current.kind !== "window" &&
      segment.kind !== "window";
    if (current && fits) {
      current = { start: current.start, end: segment.end, kind: current.kind === "block" ? segment.kind : current.kind };
      currentChars += chars;
    } else {
      flush();
      current = { ...segment };
      currentChars = chars;
    }
  }
  flush();
  return chunks.flatMap((chunk) => splitOversized(lines, chunk, symbols, maxChars));
}

/** Symbols directly inside [start, end] that no other symbol inside that range contains. */
function topLevel(symbols: readonly ExtractedSymbol[], start: number, end: number): ExtractedSymbol[] {
  const inside = symbols
    .filter((symbol) => symbol.startLine >= start && symbol.endLine <= end && !(symbol.startLine === start && symbol.endLine === end))
    .sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  const result: ExtractedSymbol[] = [];
  let coveredUntil = start - 1;
  for (const symbol of inside) {
    if (symbol.startLine <= coveredUntil) continue;
    result.push(symbol);
    coveredUntil = symbol.endLine;
  }
  return result;
}

/**
 * Segments covering [start, end]: each definition (with the gap above it when
 * the two fit together), the code between definitions, and long definitions
 * broken along their own members.
 */
function segmentRange(
  start: number,
  end: number,
  definitions: readonly ExtractedSymbol[],
  allSymbols: readonly ExtractedSymbol[],
  maxLines: number,
): Segment[] {
  const segments: Segment[] = [];
  let cursor = start;
  for (const definition of definitions) {
    let definitionStart = definition.startLine;
    if (definition.startLine > cursor) {
      const gapLength = definition.startLine - cursor;
      const definitionLength = definition.endLine - definition.startLine + 1;
      if (gapLength + definitionLength <= maxLines) definitionStart = cursor;
      else segments.push(...windows(cursor, definition.startLine - 1, maxLines, "block"));
    }
    const length = definition.endLine - definitionStart + 1;
    if (length <= maxLines) {
      segments.push({ start: definitionStart, end: definition.endLine, kind: "symbol" });
    } else {
      const members = topLevel(allSymbols, definition.startLine, definition.endLine);
      if (members.length > 0) {
        segments.push(...segmentRange(definitionStart, definition.endLine, members, allSymbols, maxLines));
      } else {
        segments.push(...windows(definitionStart, definition.endLine, maxLines, "window"));
      }
    }
    cursor = definition.endLine + 1;
  }
  if (cursor <= end) segments.push(...windows(cursor, end, maxLines, "block"));
  return segments;
}

function windows(start: number, end: number, maxLines: number, kind: Segment["kind"]): Segment[] {
  const result: Segment[] = [];
  for (let from = start; from <= end; from += maxLines) {
    result.push({ start: from, end: Math.min(end, from + maxLines - 1), kind });
  }
  return result;
}

function makeChunk(lines: LineOffsets, segment: Segment, symbols: readonly ExtractedSymbol[]): Chunk {
  return {
    startLine: segment.start,
    endLine: segment.end,
    kind: segment.kind,
    symbols: symbols.filter((symbol) => symbol.startLine >= segment.start && symbol.startLine <= segment.end).map((symbol) => symbol.name),
    content: lines.text(segment.start, segment.end),
  };
}

/** Cuts a chunk whose text is too long (very long lines) into pieces of whole lines. */
function splitOversized(lines: LineOffsets, chunk: Chunk, symbols: readonly ExtractedSymbol[], maxChars: number): Chunk[] {
  if (chunk.content.length <= maxChars || chunk.startLine === chunk.endLine) return [chunk];
  const pieces: Chunk[] = [];
  let from = chunk.startLine;
  let chars = 0;
  for (let line = chunk.startLine; line <= chunk.endLine; line++) {
    const length = lines.length(line) + 1;
    if (line > from && chars + length > maxChars) {
      pieces.push(makeChunk(lines, { start: from, end: line - 1, kind: "window" }, symbols));
      from = line;
      chars = 0;
    }
    chars += length;
  }
  pieces.push(makeChunk(lines, { start: from, end: chunk.endLine, kind: "window" }, symbols));
  return pieces;
}

/**
 * Where each line of a text starts, so that a range of lines is one slice of
 * the text: splitting every file into line strings and joining them again
 * for each chunk allocated about a tenth of what a file worker allocates
 * (docs/BENCHMARKS.md, sixteenth session). Lines are those of
 * `text.split("\n")`, a trailing newline ending the last line rather than
 * starting another (`lastLineNumber`); an empty text is one empty line.
 */
class LineOffsets {
  /** Lines in the text. */
  readonly count: number;
  /** `starts[i]` is where line i + 1 starts; `starts[count]` is one past the end of the last line's text. */
  private readonly starts: Int32Array;

  constructor(private readonly source: string) {
    let newlines = 0;
    for (let at = source.indexOf("\n"); at !== -1; at = source.indexOf("\n", at + 1)) newlines++;
    const starts = new Int32Array(newlines + 2);
    let line = 1;
    for (let at = source.indexOf("\n"); at !== -1; at = source.indexOf("\n", at + 1)) starts[line++] = at + 1;
    starts[line] = source.length + 1;
    this.starts = starts;
    // A trailing newline ends the last line: the empty piece after it is not a line of its own.
    this.count = newlines > 0 && source.endsWith("\n") ? newlines : newlines + 1;
  }

  /** Characters of 1-based line `line`, without its newline. */
  length(line: number): number {
    return (this.starts[line] as number) - (this.starts[line - 1] as number) - 1;
  }

  /** Characters of lines `start`..`end` (1-based, inclusive), a newline counted after each. */
  chars(start: number, end: number): number {
    return (this.starts[end] as number) - (this.starts[start - 1] as number);
  }

  /** Lines `start`..`end` (1-based, inclusive) joined by their newlines, as `split("\n")` then `join("\n")` gave them. */
  text(start: number, end: number): string {
    return this.source.slice(this.starts[start - 1] as number, (this.starts[end] as number) - 1);
  }
}
