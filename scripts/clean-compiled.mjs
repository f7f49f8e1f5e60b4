#!/usr/bin/env node
// Empties what `tsc` writes (dist/src, dist/workers) before it writes again.
// Why: tsc never deletes, so a module removed or renamed in src/ stayed in
// dist/ as the old compiled file, and anything that imported it by its old
// path (a worker entry, a script, the bundle's preserved URLs) kept working
// on a developer's machine and failed on a fresh clone. dist/bundle is
// emptied by scripts/bundle.mjs itself.
//
//   node scripts/clean-compiled.mjs [dist directory]   (default: this repository's dist/)
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The directories tsc emits into, one per top-level source folder of tsconfig.build.json's `include`. */
export const COMPILED_DIRECTORIES = ["src", "workers"];

export function cleanCompiled(distDirectory) {
  for (const name of COMPILED_DIRECTORIES) rmSync(join(distDirectory, name), { recursive: true, force: true });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  cleanCompiled(resolve(process.argv[2] ?? join(repo, "dist")));
}
