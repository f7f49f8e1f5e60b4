#!/usr/bin/env node
// Compiles src/search/vector-kernel.wat to wasm and embeds it as base64 in
// src/search/vector-kernel-wasm.ts, so the runtime needs neither wabt nor a
// .wasm file next to the compiled JS. Run after editing the .wat:
//   node scripts/build-vector-kernel.mjs           rewrites vector-kernel-wasm.ts
//   node scripts/build-vector-kernel.mjs --check   fails if it is not exactly what the .wat compiles to (CI runs this)
//
// wabt is not a dependency: it would put 6 MiB in every install for a script
// run only when the kernel changes. `npm exec` fetches the pinned release into
// npm's cache on first use. The generated file also records the SHA-256 of the
// .wat, which test/search/int8-vector-scan.test.ts compares offline, so an
// edit to the .wat that was not compiled in fails the suite.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const WABT = "wabt@1.0.39";
const watPath = fileURLToPath(new URL("../src/search/vector-kernel.wat", import.meta.url));
const outPath = fileURLToPath(new URL("../src/search/vector-kernel-wasm.ts", import.meta.url));

/** The wasm bytes of the .wat, from wabt's wat2wasm with SIMD (on by default) and shared memory. */
function compile(watFile) {
  const scratch = mkdtempSync(join(tmpdir(), "sylk-vector-kernel-"));
  try {
    const wasmFile = join(scratch, "vector-kernel.wasm");
    // Default options: no debug names, so the bytes depend only on the code.
    const run = spawnSync("npm", ["exec", "--yes", `--package=${WABT}`, "--", "wat2wasm", "--enable-threads", watFile, "-o", wasmFile], {
      stdio: ["ignore", "inherit", "pipe"],
      encoding: "utf8",
    });
    if (run.status !== 0) {
      throw new Error(
        `wat2wasm (${WABT}, run through npm exec, fetched from the npm registry on first use) failed:\n${run.error?.message ?? run.stderr}`,
      );
    }
    return readFileSync(wasmFile);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function generatedSource(watText, wasm) {
  return `// Generated from src/search/vector-kernel.wat by scripts/build-vector-kernel.mjs. Do not edit.
// ${wasm.length} bytes of WebAssembly (SIMD, shared memory).
export const VECTOR_KERNEL_WASM_BASE64 = "${wasm.toString("base64")}";
// The SHA-256 of the .wat these bytes came from: the tests, which run without a wasm compiler, compare it with the .wat in the tree.
export const VECTOR_KERNEL_WAT_SHA256 = "${createHash("sha256").update(watText).digest("hex")}";
`;
}

const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
const watText = readFileSync(watPath);
let wasm;
try {
  wasm = compile(watPath);
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const source = generatedSource(watText, wasm);
if (!values.check) {
  writeFileSync(outPath, source);
  console.log(`wrote ${outPath} (${wasm.length} bytes of wasm)`);
} else if (readFileSync(outPath, "utf8") !== source) {
  console.error(`${outPath} is not what ${watPath} compiles to: run node scripts/build-vector-kernel.mjs`);
  process.exit(1);
} else {
  console.log(`${outPath} holds exactly what the .wat compiles to (${wasm.length} bytes of wasm)`);
}
