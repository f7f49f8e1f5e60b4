import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { grammarWasm } from "../../src/parsing/grammar-files.js";
import { GRAMMARS } from "../../src/parsing/grammar-specs.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const GRAMMARS_DIRECTORY = join(REPO, "grammars");

interface ManifestEntry {
  package: string;
  version: string;
  integrity: string;
  repository: string;
  tag: string;
  files: Record<string, { sha256: string; abi: number }>;
}
const manifest = JSON.parse(readFileSync(join(GRAMMARS_DIRECTORY, "manifest.json"), "utf8")) as {
  loadedWith: string;
  packages: ManifestEntry[];
};
const recorded = new Map(
  manifest.packages.flatMap((entry) => Object.entries(entry.files).map(([file, facts]) => [file, { ...facts, entry }] as const)),
);

describe("the vendored grammars", () => {
  it("every language's grammar is read from grammars/ through the one helper", () => {
    for (const [language, spec] of Object.entries(GRAMMARS)) {
      const path = join(GRAMMARS_DIRECTORY, spec.wasm);
      expect(existsSync(path), `${language}: ${path}`).toBe(true);
      expect(Buffer.from(grammarWasm(language)).equals(readFileSync(path)), language).toBe(true);
    }
    expect(() => grammarWasm("cobol")).toThrow("no tree-sitter grammar for cobol");
  });

  it("the manifest records each file's package, version, source and SHA-256, and nothing else lies in grammars/", () => {
    const files = readdirSync(GRAMMARS_DIRECTORY).filter((name) => name.endsWith(".wasm"));
    expect(files.sort()).toEqual([...recorded.keys()].sort());
    expect(new Set(Object.values(GRAMMARS).map((spec) => spec.wasm))).toEqual(new Set(files));
    for (const [file, facts] of recorded) {
      expect(
        createHash("sha256")
          .update(readFileSync(join(GRAMMARS_DIRECTORY, file)))
          .digest("hex"),
        file,
      ).toBe(facts.sha256);
      expect(facts.entry.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(facts.entry.integrity).toMatch(/^sha512-/);
      expect(facts.entry.repository).toBe(`https://github.com/tree-sitter/${facts.entry.package}`);
      expect(facts.entry.tag).toBe(`v${facts.entry.version}`);
    }
  });

  it("were checked against the web-tree-sitter that package.json pins", () => {
    const pinned = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies[
      "web-tree-sitter"
    ];
    expect(manifest.loadedWith).toBe(`web-tree-sitter@${pinned}`);
  });

  it("the refresh script's --check agrees with the files, offline", () => {
    const run = spawnSync(process.execPath, [join(REPO, "scripts/refresh-grammars.mjs"), "--check"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
