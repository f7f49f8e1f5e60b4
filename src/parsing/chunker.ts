import { lastLineNumber } from "./text-lines.js";
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
  const lines = text.split("\n");
  lines.length = lastLineNumber(lines);
  if (lines.length === 0 || (lines.length === 1 && lines[0] === "")) return [];
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;

  const segments = segmentRange(1, lines.length, topLevel(symbols, 1, lines.length), symbols, options.maxLines);
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
    const chars = charCount(lines, segment.start, segment.end);
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

function makeChunk(lines: readonly string[], segment: Segment, symbols: readonly ExtractedSymbol[]): Chunk {
  return {
    startLine: segment.start,
    endLine: segment.end,
    kind: segment.kind,
    symbols: symbols.filter((symbol) => symbol.startLine >= segment.start && symbol.startLine <= segment.end).map((symbol) => symbol.name),
    content: lines.slice(segment.start - 1, segment.end).join("\n"),
  };
}

/** Cuts a chunk whose text is too long (very long lines) into pieces of whole lines. */
function splitOversized(lines: readonly string[], chunk: Chunk, symbols: readonly ExtractedSymbol[], maxChars: number): Chunk[] {
  if (chunk.content.length <= maxChars || chunk.startLine === chunk.endLine) return [chunk];
  const pieces: Chunk[] = [];
  let from = chunk.startLine;
  let chars = 0;
  for (let line = chunk.startLine; line <= chunk.endLine; line++) {
    const length = (lines[line - 1]?.length ?? 0) + 1;
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

function charCount(lines: readonly string[], start: number, end: number): number {
  let total = 0;
  for (let line = start; line <= end; line++) total += (lines[line - 1]?.length ?? 0) + 1;
  return total;
}
