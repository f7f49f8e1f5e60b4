#!/usr/bin/env node
// Compiles src/search/vector-kernel.wat to wasm and embeds it as base64 in
// src/search/vector-kernel-wasm.ts, so the runtime needs neither wabt nor a
// .wasm file next to the compiled JS. Run after editing the .wat:
//   node scripts/build-vector-kernel.mjs
// test/search/int8-vector-scan.test.ts recompiles the .wat and fails if the
// embedded bytes differ, so the two cannot silently drift apart.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import wabtInit from "wabt";

const watUrl = new URL("../src/search/vector-kernel.wat", import.meta.url);
const outUrl = new URL("../src/search/vector-kernel-wasm.ts", import.meta.url);

const text = await readFile(watUrl, "utf8");
const wabt = await wabtInit();
const module = wabt.parseWat("vector-kernel.wat", text, { simd: true, threads: true });
let buffer;
try {
  module.validate({ simd: true, threads: true });
  // Default options: no debug names, so the bytes depend only on the code.
  ({ buffer } = module.toBinary({}));
} finally {
  module.destroy();
}

const base64 = Buffer.from(buffer).toString("base64");
const source = `// Generated from src/search/vector-kernel.wat by scripts/build-vector-kernel.mjs. Do not edit.
// ${buffer.length} bytes of WebAssembly (SIMD, shared memory).
export const VECTOR_KERNEL_WASM_BASE64 = "${base64}";
`;
await writeFile(outUrl, source);
console.log(`wrote ${fileURLToPath(outUrl)} (${buffer.length} bytes of wasm)`);
