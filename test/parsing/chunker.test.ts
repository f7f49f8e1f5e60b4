import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkFile } from "../../src/parsing/chunker.js";
import { fallbackSymbols } from "../../src/parsing/fallback-symbols.js";
import { lastLineNumber } from "../../src/parsing/text-lines.js";
import type { ExtractedSymbol } from "../../src/parsing/tree-sitter-extractor.js";

const lines = (count: number, prefix = "line") => Array.from({ length: count }, (_, index) => `${prefix} ${index + 1}`).join("\n");
const symbol = (name: string, startLine: number, endLine: number, kind: ExtractedSymbol["kind"] = "function"): ExtractedSymbol => ({
  name,
  kind,
  startLine,
  endLine,
});

describe("chunkFile", () => {
  it("keeps a definition whole and gives it the comment lines above it", () => {
    const text = lines(30);
    const chunks = chunkFile(text, [symbol("a", 3, 10), symbol("b", 12, 30)], { maxLines: 20 });
    expect(chunks.map((chunk) => [chunk.startLine, chunk.endLine, chunk.kind, chunk.symbols])).toEqual([
      [1, 10, "symbol", ["a"]],
      [11, 30, "symbol", ["b"]],
    ]);
    expect(chunks[0]?.content).toBe(lines(10));
  });

  it("packs small neighbours together up to the line budget", () => {
    const text = lines(12);
    const chunks = chunkFile(text, [symbol("a", 1, 3), symbol("b", 4, 6), symbol("c", 7, 9), symbol("d", 10, 12)], { maxLines: 6 });
    expect(chunks.map((chunk) => [chunk.startLine, chunk.endLine, chunk.symbols])).toEqual([
      [1, 6, ["a", "b"]],
      [7, 12, ["c", "d"]],
    ]);
  });

  it("splits a long class along its methods, and a long function into windows", () => {
    const text = lines(100);
    const symbols = [symbol("Big", 1, 60, "class"), symbol("m1", 2, 30, "method"), symbol("m2", 31, 59, "method"), symbol("long", 61, 100)];
    const chunks = chunkFile(text, symbols, { maxLines: 30 });
    expect(chunks.map((chunk) => [chunk.startLine, chunk.endLine, chunk.kind])).toEqual([
      [1, 30, "symbol"],
      [31, 60, "symbol"],
      [61, 90, "window"],
      [91, 100, "window"],
    ]);
    expect(chunks[0]?.symbols).toEqual(["Big", "m1"]);
  });

  it("splits very long lines by characters, keeping whole lines", () => {
    const text = ["a".repeat(10_000), "b".repeat(10_000), "c"].join("\n");
    const chunks = chunkFile(text, [], { maxLines: 50, maxChars: 12_000 });
    expect(chunks.map((chunk) => [chunk.startLine, chunk.endLine])).toEqual([
      [1, 1],
      [2, 3],
    ]);
  });

  it("returns nothing for an empty file", () => {
    expect(chunkFile("", [], { maxLines: 10 })).toEqual([]);
  });

  it("covers every line exactly once, in order, whatever the symbols", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.tuple(fc.nat(200), fc.nat(60)), { maxLength: 20 }),
        fc.integer({ min: 1, max: 50 }),
        (lineCount, spans, maxLines) => {
          const symbols = spans
            .map(([start, length], index) => symbol(`s${index}`, Math.min(lineCount, start + 1), Math.min(lineCount, start + 1 + length)))
            .sort((a, b) => a.startLine - b.startLine);
          const text = lines(lineCount);
          const chunks = chunkFile(text, symbols, { maxLines });
          let expected = 1;
          for (const chunk of chunks) {
            expect(chunk.startLine).toBe(expected);
            expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
            expect(chunk.endLine - chunk.startLine + 1).toBeLessThanOrEqual(maxLines);
            expect(chunk.content).toBe(
              text
                .split("\n")
                .slice(chunk.startLine - 1, chunk.endLine)
                .join("\n"),
            );
            expected = chunk.endLine + 1;
          }
          expect(expected).toBe(lineCount + 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("cuts every chunk's text as the file's lines joined again, with empty lines, a trailing newline and lines over the character cap", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(""), fc.string({ maxLength: 12 }), fc.constant("x".repeat(90))), { minLength: 1, maxLength: 80 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(80), fc.nat(30)), { maxLength: 10 }),
        fc.integer({ min: 1, max: 20 }),
        (pieces, trailingNewline, spans, maxLines) => {
          const text = pieces.map((piece) => piece.replaceAll("\n", "\r")).join("\n") + (trailingNewline ? "\n" : "");
          // The file's lines as a split gives them, a trailing newline ending the last line.
          const fileLines = text.split("\n");
          fileLines.length = lastLineNumber(fileLines);
          const lineCount = fileLines.length;
          const symbols = spans
            .map(([start, length], index) => symbol(`s${index}`, Math.min(lineCount, start + 1), Math.min(lineCount, start + 1 + length)))
            .sort((a, b) => a.startLine - b.startLine);
          const chunks = chunkFile(text, symbols, { maxLines, maxChars: 100 });
          if (lineCount === 1 && fileLines[0] === "") {
            expect(chunks).toEqual([]);
            return;
          }
          let expected = 1;
          for (const chunk of chunks) {
            expect(chunk.startLine).toBe(expected);
            expect(chunk.content).toBe(fileLines.slice(chunk.startLine - 1, chunk.endLine).join("\n"));
            expect(chunk.symbols).toEqual(
              symbols.filter((s) => s.startLine >= chunk.startLine && s.startLine <= chunk.endLine).map((s) => s.name),
            );
            expected = chunk.endLine + 1;
          }
          expect(expected).toBe(lineCount + 1);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("fallbackSymbols", () => {
  it("turns Markdown headings into sections, ignoring fenced code", () => {
    const text = "# Title\nintro\n## Install\nnpm i\n```sh\n# not a heading\n```\n## Use\nrun it\n";
    expect(fallbackSymbols(text, "markdown")).toEqual([
      { name: "Title", kind: "heading", startLine: 1, endLine: 9 },
      { name: "Install", kind: "heading", startLine: 3, endLine: 7 },
      { name: "Use", kind: "heading", startLine: 8, endLine: 9 },
    ]);
  });

  it("has no symbols for plain text", () => {
    expect(fallbackSymbols("just text\n", "text")).toEqual([]);
  });
});
