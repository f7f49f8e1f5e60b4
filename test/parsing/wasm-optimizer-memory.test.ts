import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { GRAMMARS } from "../../src/parsing/grammar-specs.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const COMPILED_MODULE = pathToFileURL(join(REPO, "dist/src/parsing/wasm-optimizer-memory.js")).href;
const MB = 1024 * 1024;
/** What optimising the largest function of the grammars may take with the options applied (on Node 24: 358 MB, and 694 MB without them). */
const COMPILER_MEMORY_BOUND = 450 * MB;

/**
 * Compiles one grammar with V8's optimising tier for every function (as a
 * long index eventually does for the hot ones), in a process of its own
 * that applies the options the way the index process does, and returns the
 * most memory one function's compilation took.
 */
function largestOptimizingCompile(grammarFile: string): number {
  const script = `
    (await import(${JSON.stringify(COMPILED_MODULE)})).boundWasmOptimizerMemory();
    const { readFileSync } = await import("node:fs");
    new WebAssembly.Module(readFileSync(${JSON.stringify(join(REPO, "grammars", grammarFile))}));
  `;
  const child = spawnSync(
    process.execPath,
    ["--no-liftoff", "--no-wasm-lazy-compilation", "--trace-wasm-compilation-times", "--input-type=module", "-e", script],
    { encoding: "utf8", maxBuffer: 64 * MB },
  );
  expect(child.status, child.stderr).toBe(0);
  const peaks = [...child.stdout.matchAll(/using TurboFan, took \d+ ms and (\d+) \/ \d+ max\/total bytes/g)].map((match) =>
    Number(match[1]),
  );
  expect(peaks.length).toBeGreaterThan(0);
  return Math.max(...peaks);
}

describe("the optimising compiler's memory for grammars", () => {
  it("stays under the bound for the bash grammar's lexer, the largest function of all the grammars", () => {
    expect(GRAMMARS.bash?.wasm).toBe("tree-sitter-bash.wasm");
    expect(largestOptimizingCompile("tree-sitter-bash.wasm")).toBeLessThan(COMPILER_MEMORY_BOUND);
  }, 60_000);
});
