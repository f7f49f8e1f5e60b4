import { CLASS_LIKE_KINDS, type SymbolKind } from "./grammar-specs.js";
import { lastLineNumber } from "./text-lines.js";
import type { ExtractedSymbol } from "./tree-sitter-extractor.js";

interface DefinitionPattern {
  /** Matched against one line; the name is the last capture group. */
  pattern: RegExp;
  kind: SymbolKind | ((keyword: string) => SymbolKind);
}

const RUST_KEYWORD_KINDS: Record<string, SymbolKind> = {
  fn: "function",
  struct: "struct",
  enum: "enum",
  union: "struct",
  trait: "trait",
  type: "type",
  mod: "module",
  "macro_rules!": "macro",
};

const SCRIPT_KEYWORD_KINDS: Record<string, SymbolKind> = {
  function: "function",
  "function*": "function",
  class: "class",
  interface: "interface",
  type: "type",
  enum: "enum",
  namespace: "module",
  module: "module",
};

const SCRIPT_PATTERNS: DefinitionPattern[] = [
  {
    pattern:
      /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|class|interface|type|enum|namespace|module)\s+([A-Za-z_$][\w$]*)/,
    kind: (keyword) => SCRIPT_KEYWORD_KINDS[keyword] ?? "function",
  },
  {
    pattern:
      /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)/,
    kind: "function",
  },
];

/** Leading comment lines: `//`, `#`, `--`, and block comments' lines. */
const COMMENT_LINE = /^\s*(?:\/\/|#(?!!?\[)|--|\/\*|\*)/;

/**
 * The comment lines at the top of a file (after blank lines), newline
 * separated: what a large file says about itself (`Generated file, do not
 * edit`), without a parse.
 */
export function leadingComments(text: string, maxLines = 40): string {
  const comments: string[] = [];
  for (const line of text.split("\n", maxLines)) {
    if (line.trim() === "" && comments.length === 0) continue;
    if (!COMMENT_LINE.test(line)) break;
    comments.push(line.trimEnd());
  }
  return comments.join("\n");
}

/** Per language; a pattern's last capture group is the name, a first one before it the keyword. */
const PATTERNS: Record<string, DefinitionPattern[]> = {
  rust: [
    {
      pattern:
        /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|default)\s+|extern\s+"[^"]*"\s+)*(fn|struct|enum|union|trait|type|mod|macro_rules!)\s*([A-Za-z_]\w*)/,
      kind: (keyword) => RUST_KEYWORD_KINDS[keyword] ?? "function",
    },
    { pattern: /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[^{]*?\s+for\s+)?&?([A-Za-z_][\w:]*)/, kind: "impl" },
  ],
  typescript: SCRIPT_PATTERNS,
  tsx: SCRIPT_PATTERNS,
  javascript: SCRIPT_PATTERNS,
  python: [{ pattern: /^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/, kind: (keyword) => (keyword === "class" ? "class" : "function") }],
  go: [
    { pattern: /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/, kind: "function" },
    { pattern: /^type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\b/, kind: "type" },
  ],
  java: [
    {
      pattern: /^\s*(?:(?:public|protected|private|static|final|abstract|sealed)\s+)*(class|interface|enum|record)\s+([A-Za-z_]\w*)/,
      kind: (keyword) => (keyword === "interface" ? "interface" : keyword === "enum" ? "enum" : "class"),
    },
  ],
};

/** Whether this scanner knows the language's definitions. */
export function hasDefinitionPatterns(language: string): boolean {
  return language in PATTERNS;
}

/**
 * Definition lines by regular expression, for files too large to parse
 * (see `MAX_PARSE_BYTES` in file-processor.ts): one pass over the lines
 * instead of a syntax tree. It finds definitions by their keyword, which is
 * what chunking and the symbol table need from a large file (mostly a
 * generated one); a definition is taken to run until the next one at the
 * same or a lower indentation.
 */
export function definitionLines(text: string, language: string): ExtractedSymbol[] {
  const patterns = PATTERNS[language];
  if (!patterns) return [];
  const lines = text.split("\n");
  const found: Array<{ symbol: ExtractedSymbol; indent: number }> = [];
  lines.forEach((line, index) => {
    for (const { pattern, kind } of patterns) {
      const match = pattern.exec(line);
      if (!match) continue;
      const name = match[match.length - 1] as string;
      const keyword = match.length > 2 ? (match[1] as string) : "";
      const symbol: ExtractedSymbol = {
        name,
        kind: typeof kind === "function" ? kind(keyword) : kind,
        startLine: index + 1,
        endLine: index + 1,
      };
      found.push({ symbol, indent: line.length - line.trimStart().length });
      return;
    }
  });
  // A definition runs to the line before the next one at its indentation or
  // less (trailing blank lines excluded), or to the end of the file.
  const lastLine = lastLineNumber(lines);
  const close = (symbol: ExtractedSymbol, before: number) => {
    let end = before;
    while (end > symbol.startLine && (lines[end - 1] ?? "").trim() === "") end--;
    symbol.endLine = end;
  };
  const open: Array<{ symbol: ExtractedSymbol; indent: number }> = [];
  for (const definition of found) {
    while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) >= definition.indent) {
      close((open.pop() as { symbol: ExtractedSymbol }).symbol, definition.symbol.startLine - 1);
    }
    const parent = open[open.length - 1]?.symbol;
    if (parent) {
      definition.symbol.parent = parent.name;
      if (definition.symbol.kind === "function" && CLASS_LIKE_KINDS.has(parent.kind)) definition.symbol.kind = "method";
    }
    open.push(definition);
  }
  for (const { symbol } of open) close(symbol, lastLine);
  return found.map(({ symbol }) => symbol);
}
