import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string> };

/**
 * What Node runs of the installed package: the bundled CLI, and outside it
 * the worker entries and the file watcher, whose thread starts its own
 * compiled module in dist/src/ (see project-watcher.ts).
 */
function runtimeEntries(): string[] {
  const workers = readdirSync(join(REPO, "dist", "workers")).filter((name) => /\.c?js$/.test(name));
  return [
    join(REPO, "dist", "bundle", "main.js"),
    ...workers.map((name) => join(REPO, "dist", "workers", name)),
    join(REPO, "dist", "src", "indexer", "project-watcher.js"),
  ];
}

/**
 * The code those entries run (each with every chunk and module of ours it
 * reaches), packages left as imports, comments dropped: a package's
 * documentation that shows an import is not one.
 */
async function runtimeCode(): Promise<string> {
  const result = await build({
    entryPoints: runtimeEntries(),
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    minifyWhitespace: true,
    legalComments: "none",
    write: false,
    outdir: join(REPO, "dist", "runtime-graph"),
    logLevel: "silent",
  });
  return result.outputFiles.map((file) => file.text).join("\n");
}

/**
 * Module specifiers that code loads: imports left external, and requires
 * esbuild cannot follow (a `require` made by createRequire, called by its
 * name or as `createRequire(…)("name")`, and its `resolve`). A `require`
 * that opens a string is text, not a call: a code generator's output (ajv,
 * in the MCP SDK, writes `'require("ajv/dist/runtime/equal")'` into the
 * standalone validators it can emit, and never runs it).
 */
const LOADED_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|(?<![`'"])require[\w$]*(?:\.resolve)?\s*\(\s*|\)\s*\(\s*)["']([^"'./][^"']*)["']/g;

/**
 * The installed packages that code loads. Optional ones that load only when
 * present (ws's bufferutil, Ink's react-devtools-core) are not installed in a
 * development checkout either, so the suite shows nothing needs them.
 */
function packagesLoaded(code: string): string[] {
  const names = new Set<string>();
  for (const [, specifier = ""] of code.matchAll(LOADED_SPECIFIER)) {
    if (specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] ?? "")) continue;
    const segments = specifier.split("/");
    const name = specifier.startsWith("@") ? segments.slice(0, 2).join("/") : (segments[0] ?? "");
    if (existsSync(join(REPO, "node_modules", name, "package.json"))) names.add(name);
  }
  return [...names].sort();
}

async function packagesLoadedAtRunTime(): Promise<string[]> {
  return packagesLoaded(await runtimeCode());
}

describe("runtime dependencies (what npm install -g brings)", () => {
  it("every package sylk loads from node_modules at run time is a dependency, so a global install has it", async () => {
    const missing = (await packagesLoadedAtRunTime()).filter((name) => !(name in manifest.dependencies));
    expect(missing, "loaded at run time, yet not in package.json's dependencies: move them there").toEqual([]);
  });

  it("every dependency is one of those: what the bundle holds is a devDependency, which users do not install", async () => {
    const loaded = new Set(await packagesLoadedAtRunTime());
    const bundled = Object.keys(manifest.dependencies).filter((name) => !loaded.has(name));
    expect(bundled, "in dependencies, yet only the bundle uses them (scripts/bundle.mjs): move them to devDependencies").toEqual([]);
  });
});
