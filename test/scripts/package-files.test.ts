import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** What `npm pack` would put in the package (`files` in package.json), from the built tree. */
function packedPaths(): string[] {
  const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  const [pack] = JSON.parse(run.stdout) as Array<{ files: Array<{ path: string }> }>;
  return (pack?.files ?? []).map((file) => file.path);
}

describe("the npm package (npm pack, npm install -g)", () => {
  it("holds what a global sylk runs: the launcher, the bundle, the workers, tool descriptions, role prompts and every grammar", () => {
    const paths = new Set(packedPaths());
    const bundleEntries = readdirSync(new URL("../../dist/bundle/", import.meta.url)).filter((name) => name.endsWith(".js"));
    for (const required of [
      "package.json",
      "bin/sylk.js",
      "bin/node-version.js",
      "bin/compile-cache.js",
      "bin/first-paint.js",
      ...bundleEntries.map((name) => `dist/bundle/${name}`),
      "dist/workers/file-worker-loader.cjs",
      "dist/workers/file-worker.js",
      "dist/workers/file-worker.bundle.js",
      "dist/workers/vector-scan-worker.js",
      "dist/src/agent/tools/glob.txt",
      "dist/src/roles/prompts/engineer.md",
      "dist/src/search/vector-kernel-wasm.js",
      "grammars/manifest.json",
      ...readdirSync(new URL("../../grammars/", import.meta.url)).map((name) => `grammars/${name}`),
    ]) {
      expect(paths.has(required), required).toBe(true);
    }
  });

  it("leaves out sources, tests, scripts and source maps", () => {
    const stray = packedPaths().filter(
      (path) =>
        /^(src|test|scripts|node_modules)\//.test(path) || path.endsWith(".map") || (path.endsWith(".ts") && !path.endsWith(".d.ts")),
    );
    expect(stray).toEqual([]);
  });
});
