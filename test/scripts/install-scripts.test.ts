import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const manifest = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { allowScripts: Record<string, boolean> };

/** Every installed package's directory, scoped and nested ones included. */
function packageDirectories(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return [];
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@")
        ? readdirSync(join(nodeModules, name)).map((scoped) => join(nodeModules, name, scoped))
        : [join(nodeModules, name)],
    )
    .flatMap((directory) => [directory, ...packageDirectories(join(directory, "node_modules"))]);
}

/**
 * The packages npm would run scripts for on install: a preinstall, install
 * or postinstall script, or a binding.gyp (npm then runs `node-gyp rebuild`).
 */
function packagesWithInstallScripts(): string[] {
  const names = new Set<string>();
  for (const directory of packageDirectories(join(REPO, "node_modules"))) {
    const path = join(directory, "package.json");
    if (!existsSync(path)) continue;
    const { name, scripts = {} } = JSON.parse(readFileSync(path, "utf8")) as { name: string; scripts?: Record<string, string> };
    if (scripts.preinstall || scripts.install || scripts.postinstall || existsSync(join(directory, "binding.gyp"))) names.add(name);
  }
  return [...names].sort();
}

describe("install scripts (npm's allowScripts)", () => {
  it("only better-sqlite3 and esbuild have them, and exactly those are approved", () => {
    const scripted = packagesWithInstallScripts();
    expect(scripted).toEqual(["better-sqlite3", "esbuild"]);
    expect(Object.keys(manifest.allowScripts).sort()).toEqual(scripted);
    expect(Object.values(manifest.allowScripts).every((allowed) => allowed === true)).toBe(true);
  });
});
