#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js) into dist/bundle/ for
// bin/sylk.js. Why: Node resolves and reads every module file on start-up,
// and our dependencies are made of thousands (the Anthropic SDK ~1,100, the
// OpenAI SDK ~500, zod ~240, and Ink's es-toolkit ~1,300 for one function):
// that alone took 0.6 s before `sylk` could draw anything. Bundled, start-up
// reads a handful of files. Code splitting keeps Ink and React in their own
// chunk, loaded only by the interactive session.
//
// Modules find their files (tool descriptions, worker entries, grammars)
// relative to `import.meta.url`; the plugin below gives each bundled module
// its original URL in dist/src/, so those lookups work unchanged. Packages
// that load native code, WASM or worker files by their own paths stay
// external and load from node_modules as before.
import { rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  betterSqliteDirname,
  decodeYogaWithoutFetch,
  lazyChildProcessInCommander,
  narrowTextShortcut,
  sharedBuildOptions,
} from "./lib/bundle-options.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(repo, "dist", "bundle");
const compiled = join(repo, "dist", "src") + sep;

// What stays external, and what a module requires by name, loads from
// node_modules: those packages are `dependencies`, and everything bundled is
// a devDependency (test/scripts/runtime-dependencies.test.ts holds both).
// better-sqlite3's JavaScript is bundled (its addon is found as below):
// loaded from node_modules, its CommonJS files cost a one-shot search ~4 ms
// in the loader.
const EXTERNAL = [
  "sqlite-vec", // finds its loadable extension next to its own files
  "piscina", // starts workers from its own files
  "web-tree-sitter", // loads tree-sitter.wasm beside itself
  "flexsearch",
  "react-devtools-core", // Ink imports it only when DEV=true
];

/** Each module keeps the `import.meta.url` it had in dist/src/, as seen from a bundle written to `bundleDirectory`. */
function preserveModuleUrls(bundleDirectory) {
  return {
    name: "preserve-module-urls",
    setup(builder) {
      builder.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(compiled)) return undefined;
        const contents = await readFile(args.path, "utf8");
        if (!contents.includes("import.meta.url")) return { contents, loader: "js" };
        const fromBundle = relative(bundleDirectory, args.path).split(sep).join("/");
        return {
          contents: contents.replaceAll("import.meta.url", `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`),
          loader: "js",
        };
      });
    },
  };
}

// Chunk names change with their content: start from an empty directory.
rmSync(outdir, { recursive: true, force: true });

await build({
  ...sharedBuildOptions(),
  entryPoints: { main: join(compiled, "cli", "main.js") },
  outdir,
  external: EXTERNAL,
  plugins: [preserveModuleUrls(outdir), decodeYogaWithoutFetch, lazyChildProcessInCommander, betterSqliteDirname, narrowTextShortcut],
  legalComments: "linked",
});

// The file worker, bundled too: each of the indexing pool's threads loaded
// its ES module graph file by file (≈ 120 modules: zod, the parsers, the
// featurizer), 61–83 ms of a worker's start in a cold index, at every start.
// One file, no chunks (the worker has no code another would share), written
// beside the worker it bundles; its loader (workers/file-worker-loader.cts)
// imports it when it exists. The same packages stay external.
const workers = join(repo, "dist", "workers");
const fileWorkerBundle = join(workers, "file-worker.bundle.js");
rmSync(fileWorkerBundle, { force: true });
await build({
  ...sharedBuildOptions(),
  splitting: false,
  entryPoints: [join(workers, "file-worker.js")],
  outfile: fileWorkerBundle,
  external: EXTERNAL,
  plugins: [preserveModuleUrls(workers), betterSqliteDirname],
  legalComments: "linked",
});
