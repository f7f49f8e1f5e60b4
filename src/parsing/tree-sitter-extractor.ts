import { Language, Parser, Query, type Node } from "web-tree-sitter";
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

export interface LoadedGrammar {
  parser: Parser;
  query: Query;
  spec: GrammarSpec;
  /** Where the query is node types alone: those types, found by a descendants walk instead (`definitionsAndComments`). */
  walk: DescendantsWalk | undefined;
}

interface DescendantsWalk {
  /** Every definition's and comment's node type. */
  types: string[];
  comments: ReadonlySet<string>;
  /** Some of `types` also name an anonymous node (Ruby's keyword `class`), which the walk finds and the query does not. */
  unnamedTwins: boolean;
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
      return collectExtraction(language, grammar, tree.rootNode);
    } finally {
      tree.delete(); // WASM memory is not garbage-collected
    }
  }

  /** The language's parser and query, loaded on first use (the floor benchmark and the tests take them apart). */
  grammar(language: string): Promise<LoadedGrammar> {
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
    return { parser, query: new Query(grammar, querySource(spec)), spec, walk: descendantsWalk(grammar, spec) };
  }
}

/**
 * A walk for the grammar's definitions and comments when its query is node
 * types alone (no contextual pattern): the same nodes as the query's
 * captures, found by a plain tree cursor in the runtime rather than the
 * query cursor, ≈ 0.7× its time on biome's Rust (docs/DESIGN-NOTES.md, "A
 * grammar whose query is node types alone").
 */
function descendantsWalk(grammar: Language, spec: GrammarSpec): DescendantsWalk | undefined {
  if ((spec.contextualPatterns ?? []).length > 0) return undefined;
  const types = [...Object.keys(spec.definitions), ...spec.comments];
  return {
    types,
    comments: new Set(spec.comments),
    unnamedTwins: types.some((type) => grammar.idForNodeType(type, false) !== null),
  };
}

/**
 * The definitions' and comments' nodes in document order, the outer node
 * first when two start together, each with whether it is a comment: by the
 * grammar's walk where it has one, else (or with `by` "query") by its query.
 */
export function* definitionsAndComments(
  grammar: LoadedGrammar,
  root: Node,
  by: "walk" | "query" = "walk",
): Generator<[node: Node, comment: boolean]> {
  const walk = grammar.walk;
  if (walk && by === "walk") {
    for (const node of root.descendantsOfType(walk.types)) {
      if (!node || (walk.unnamedTwins && !node.isNamed)) continue;
      yield [node, walk.comments.has(node.type)];
    }
    return;
  }
  const captures = grammar.query.captures(root);
  captures.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
  for (const { name, node } of captures) yield [node, name === "comment"];
}

/**
 * The symbols and comments of a parsed tree, by the grammar's walk or query
 * (exported for scripts/bench-parse-native.mjs, which runs it on the trees
 * of another parser too).
 */
export function collectExtraction(language: string, grammar: LoadedGrammar, root: Node): Extraction {
  const symbols: ExtractedSymbol[] = [];
  const comments: string[] = [];
  const open: Array<{ end: number; symbol: ExtractedSymbol }> = [];
  for (const [node, comment] of definitionsAndComments(grammar, root)) {
    if (comment) {
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
