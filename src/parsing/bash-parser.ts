import type { Tree } from "web-tree-sitter";
import { grammarWasm, treeSitterRuntimeWasm } from "./grammar-files.js";
import { boundWasmOptimizerMemory } from "./wasm-optimizer-memory.js";

/** Reads shell source into a syntax tree (tree-sitter's bash grammar); the caller deletes the tree. */
export interface ShellSyntaxParser {
  parse(source: string): Tree | null;
}

let loading: Promise<ShellSyntaxParser> | undefined;

/**
 * The bash grammar's parser. It loads once per process and is shared:
 * web-tree-sitter's runtime is itself one per process (`Parser.init` sets a
 * module-wide binding), and a parser holds no state between parses. The
 * package is imported on first use, so commands that never judge a shell
 * command do not load it.
 */
export function loadBashParser(): Promise<ShellSyntaxParser> {
  loading ??= (async () => {
    // Before the grammar compiles: this thread's bash is then the baseline-tier module the index's workers share.
    boundWasmOptimizerMemory();
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init({ locateFile: treeSitterRuntimeWasm });
    const parser = new Parser();
    parser.setLanguage(await Language.load(grammarWasm("bash")));
    return parser;
  })();
  return loading;
}
