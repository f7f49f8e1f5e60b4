import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { GRAMMARS } from "../../src/parsing/grammar-specs.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const COMPILED_MODULE = pathToFileURL(join(REPO, "dist/src/parsing/wasm-optimizer-memory.js")).href;
const COMPILED_EXTRACTOR = pathToFileURL(join(REPO, "dist/src/parsing/tree-sitter-extractor.js")).href;
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

/** A shell script with a little of everything the bash lexer reads: words, quotes, expansions, heredocs, functions. */
const SHELL_SCRIPT = Array.from(
  { length: 40 },
  (_, index) => `#!/usr/bin/env bash
set -euo pipefail
build_${index}() {
  local target="\${1:-release}" count=$(( ${index} * 2 ))
  for file in src/*.rs "$HOME"/'lib dir'/*; do
    if [[ -f "$file" && $count -gt 0 ]]; then echo "$file: \${file##*/}" >> out.${index}.log; fi
  done
  cat <<END
built $target in $(pwd) \`date\`
END
}
case "$1" in start|stop) build_${index} "$@" ;; *) exit 2 ;; esac
`,
).join("\n");

/** V8's memory-reducing full collection (what a heap snapshot, a low-memory notification or a heap near its limit runs), on the main thread. */
const REDUCING_COLLECTION = `
  (await import("node:v8")).setFlagsFromString("--expose-gc");
  (await import("node:vm")).runInNewContext("gc")({ type: "major", execution: "sync", flavor: "last-resort" });
`;

interface TracedCompile {
  module: string;
  tier: "Liftoff" | "TurboFan";
  bodySize: number;
}

/**
 * Runs the index's path in a process of its own: the main thread applies the
 * options (as the worker pool does before its threads start), and a worker
 * thread extracts symbols from shell scripts with a tiering budget so small
 * that any function that can tier up does so within the run (without the
 * baseline tier, the bash lexer's optimising compile is traced in it on
 * Node 22 and 24). Not `--wasm-sync-tier-up`: on Node 22 a synchronous
 * tier-up there ran for minutes. Returns every compile V8 traced.
 */
function compilesWhileParsingShell(afterReducingCollection = false): TracedCompile[] {
  const worker = `
    (async () => {
      const { TreeSitterExtractor } = await import(${JSON.stringify(COMPILED_EXTRACTOR)});
      const extractor = new TreeSitterExtractor();
      for (let round = 0; round < 10; round++) await extractor.extract(${JSON.stringify(SHELL_SCRIPT)}, "bash");
    })();
  `;
  const script = `
    (await import(${JSON.stringify(COMPILED_MODULE)})).boundWasmOptimizerMemory();
    ${afterReducingCollection ? REDUCING_COLLECTION : ""}
    const { Worker } = await import("node:worker_threads");
    const worker = new Worker(${JSON.stringify(worker)}, { eval: true });
    await new Promise((resolve, reject) => { worker.on("exit", resolve); worker.on("error", reject); });
  `;
  const child = spawnSync(
    process.execPath,
    ["--wasm-tiering-budget=1000", "--trace-wasm-compilation-times", "--input-type=module", "-e", script],
    // spawnSync holds the test's thread, so vitest's own timeout could not end a run that hangs.
    { encoding: "utf8", maxBuffer: 64 * MB, timeout: 100_000 },
  );
  expect(child.status, child.stderr).toBe(0);
  return [...child.stdout.matchAll(/Compiled function (0x[0-9a-f]+)#\d+ using (Liftoff|TurboFan).*?bodysize (\d+)/g)].map((match) => ({
    module: match[1] as string,
    tier: match[2] as TracedCompile["tier"],
    bodySize: Number(match[3]),
  }));
}

describe("the grammars kept on the baseline tier", () => {
  it("never optimises the bash grammar in a worker thread, while the tree-sitter runtime beside it still is", () => {
    const compiles = compilesWhileParsingShell();
    // The bash lexer is by far the largest function the worker runs: its module is bash's.
    const lexer = compiles.reduce((largest, compile) => (compile.bodySize > largest.bodySize ? compile : largest));
    expect(lexer.bodySize).toBeGreaterThan(100_000);
    const optimised = compiles.filter((compile) => compile.tier === "TurboFan");
    expect(optimised.length).toBeGreaterThan(0);
    expect(optimised.filter((compile) => compile.module === lexer.module)).toEqual([]);
  }, 120_000);

  it("keeps bash on it after a memory-reducing collection", () => {
    const compiles = compilesWhileParsingShell(true);
    const lexer = compiles.reduce((largest, compile) => (compile.bodySize > largest.bodySize ? compile : largest));
    expect(lexer.bodySize).toBeGreaterThan(100_000);
    expect(compiles.filter((compile) => compile.tier === "TurboFan" && compile.module === lexer.module)).toEqual([]);
  }, 120_000);
});

describe("the options set", () => {
  it("are all known to the running V8: one it does not know is an error on the user's stderr", () => {
    const script = `(await import(${JSON.stringify(COMPILED_MODULE)})).boundWasmOptimizerMemory();`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).not.toMatch(/unrecognized flag/i);
  }, 60_000);
});
