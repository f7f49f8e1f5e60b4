import { Language, Parser, Query } from "web-tree-sitter";
import { grammarWasm, treeSitterRuntimeWasm } from "./grammar-files.js";
import { CLASS_LIKE_KINDS, GRAMMARS, querySource, type GrammarSpec, type SymbolKind } from "./grammar-specs.js";
import { nameAndKind, pythonDocstring } from "./symbol-names.js";
import { boundWasmOptimizerMemory } from "./wasm-optimizer-memory.js";

export interface ExtractedSymbol {
  name: string;
  kind: SymbolKind;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** Name of the enclosing symbol, when nested. */
  parent?: string;
}

export interface Extraction {
  symbols: ExtractedSymbol[];
  /** All comments (and Python docstrings), newline-separated. */
  comments: string;
  /** The parse had syntax errors; symbols are what could be recovered. */
  hasError: boolean;
}

interface LoadedGrammar {
  parser: Parser;
  query: Query;
  spec: GrammarSpec;
}

/**
 * Symbols and comments from tree-sitter grammars compiled to WASM. One
 * instance per worker thread; grammars load on first use of their language.
 */
export class TreeSitterExtractor {
  private initialised: Promise<void> | undefined;
  private readonly grammars = new Map<string, Promise<LoadedGrammar>>();

  constructor() {
    boundWasmOptimizerMemory();
  }

  supports(language: string): boolean {
    return language in GRAMMARS;
  }

  async extract(source: string, language: string): Promise<Extraction> {
    const grammar = await this.grammar(language);
    const tree = grammar.parser.parse(source);
    if (!tree) throw new Error(`tree-sitter could not parse this ${language} file`);
    try {
      return collect(language, grammar, tree.rootNode);
    } finally {
      tree.delete(); // WASM memory is not garbage-collected
    }
  }

  private grammar(language: string): Promise<LoadedGrammar> {
    let loaded = this.grammars.get(language);
    if (!loaded) {
      loaded = this.load(language);
      this.grammars.set(language, loaded);
    }
    return loaded;
  }

  private async load(language: string): Promise<LoadedGrammar> {
    const spec = GRAMMARS[language];
    if (!spec) throw new Error(`no tree-sitter grammar for ${language}`);
    this.initialised ??= Parser.init({ locateFile: treeSitterRuntimeWasm });
    await this.initialised;
    const grammar = await Language.load(grammarWasm(language));
    const parser = new Parser();
    parser.setLanguage(grammar);
    return { parser, query: new Query(grammar, querySource(spec)), spec };
  }
}

function collect(language: string, grammar: LoadedGrammar, root: import("web-tree-sitter").Node): Extraction {
  const captures = grammar.query.captures(root);
  // Document order; the outer node first when two start together.
  captures.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  const symbols: ExtractedSymbol[] = [];
  const comments: string[] = [];
  const open: Array<{ end: number; symbol: ExtractedSymbol }> = [];
  for (const { name: capture, node } of captures) {
    if (capture === "comment") {
      comments.push(node.text.trimEnd());
      continue;
    }
    const definitionKind = grammar.spec.definitions[node.type];
    if (!definitionKind) continue;
    const named = nameAndKind(language, node, definitionKind);
    if (!named) continue;
    while (open.length > 0 && (open[open.length - 1]?.end ?? 0) <= node.startIndex) open.pop();
    const parent = open[open.length - 1]?.symbol;
    let [name, kind] = named;
    if (kind === "function" && parent && CLASS_LIKE_KINDS.has(parent.kind)) kind = "method";
    else if (kind === "method" && !parent && language === "ruby") kind = "function";
    // Python decorators belong to the definition they decorate.
    const outer = language === "python" && node.parent?.type === "decorated_definition" ? node.parent : node;
    const symbol: ExtractedSymbol = {
      name,
      kind,
      startLine: outer.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
    };
    if (parent) symbol.parent = parent.name;
    symbols.push(symbol);
    open.push({ end: node.endIndex, symbol });
    if (language === "python" && kind !== "variable") {
      const docstring = pythonDocstring(node.childForFieldName("body"));
      if (docstring) comments.push(docstring);
    }
  }
  if (language === "python") {
    const docstring = pythonDocstring(root);
    if (docstring) comments.unshift(docstring);
  }
  return { symbols, comments: comments.join("\n"), hasError: root.hasError };
}
