import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { COMPILED_DIRECTORIES, cleanCompiled } from "../../scripts/clean-compiled.mjs";

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("clean-compiled (run by npm run build before tsc)", () => {
  it("empties exactly the folders tsc compiles into, as tsconfig.build.json includes them", () => {
    const buildConfig = JSON.parse(readFileSync(new URL("../../tsconfig.build.json", import.meta.url), "utf8")) as { include: string[] };
    expect([...COMPILED_DIRECTORIES].sort()).toEqual([...buildConfig.include].sort());
  });

  it("removes a compiled module whose source is gone, and leaves the bundle and other files", () => {
    const dist = mkdtempSync(join(tmpdir(), "sylk-clean-compiled-"));
    made.push(dist);
    const stale = join(dist, "src", "indexer", "removed-module.js");
    mkdirSync(join(dist, "src", "indexer"), { recursive: true });
    writeFileSync(stale, "export const gone = true;\n");
    mkdirSync(join(dist, "workers"), { recursive: true });
    writeFileSync(join(dist, "workers", "old-worker.js"), "\n");
    mkdirSync(join(dist, "bundle"), { recursive: true });
    writeFileSync(join(dist, "bundle", "main.js"), "\n");

    cleanCompiled(dist);

    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(dist, "workers"))).toBe(false);
    expect(existsSync(join(dist, "bundle", "main.js"))).toBe(true);
    cleanCompiled(dist); // nothing left to remove is not an error
  });
});
