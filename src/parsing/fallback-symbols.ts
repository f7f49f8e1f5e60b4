import { lastLineNumber } from "./text-lines.js";
import type { ExtractedSymbol } from "./tree-sitter-extractor.js";

const MARKDOWN_HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/**
 * Symbols for languages without a tree-sitter grammar here. Markdown headings
 * become sections (each runs to the next heading of the same or a higher
 * level), so documentation chunks follow its structure; other text has none
 * and is chunked by lines.
 */
export function fallbackSymbols(text: string, language: string): ExtractedSymbol[] {
  if (language !== "markdown") return [];
  const lines = text.split("\n");
  const headings: Array<{ level: number; name: string; line: number }> = [];
  let inFence = false;
  lines.forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) return;
    const match = MARKDOWN_HEADING.exec(line);
    if (match?.[1] && match[2]) headings.push({ level: match[1].length, name: match[2], line: index + 1 });
  });
  const lastLine = lastLineNumber(lines);
  return headings.map((heading, index) => {
    const next = headings.slice(index + 1).find((other) => other.level <= heading.level);
    return { name: heading.name, kind: "heading", startLine: heading.line, endLine: next ? next.line - 1 : lastLine };
  });
}
