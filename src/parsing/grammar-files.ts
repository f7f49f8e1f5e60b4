import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { GRAMMARS } from "./grammar-specs.js";

const require = createRequire(import.meta.url);

/**
 * Where the tree-sitter runtime and the grammars' `.wasm` files are found:
 * the one place that knows how they ship, for every module that loads a
 * grammar (the indexer's extractor, the permission policy's shell parser).
 */
export function treeSitterRuntimeWasm(): string {
  return require.resolve("web-tree-sitter/tree-sitter.wasm");
}

/** The compiled grammar of one of the languages in `GRAMMARS`. */
export function grammarWasm(language: string): Uint8Array {
  const spec = GRAMMARS[language];
  if (!spec) throw new Error(`no tree-sitter grammar for ${language}`);
  const [packageName, file] = spec.wasm;
  return readFileSync(require.resolve(`${packageName}/${file}`));
}
