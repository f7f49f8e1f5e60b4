import { join } from "node:path";
import { sylkPackageRoot } from "../package-root.js";
import { GRAMMARS } from "./grammar-specs.js";

/**
 * Where a language's tree-sitter grammar (`.wasm`) is: the one place that
 * knows. The grammars are vendored in `grammars/` at the package root,
 * fetched by scripts/refresh-grammars.mjs from the official packages, whose
 * versions and sources grammars/manifest.json records.
 */
export function grammarWasmPath(language: string): string {
  const spec = GRAMMARS[language];
  if (!spec) throw new Error(`no tree-sitter grammar for ${language}`);
  return join(sylkPackageRoot(), "grammars", spec.wasm);
}
