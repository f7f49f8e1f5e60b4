import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { PathFilter } from "../../src/indexer/path-filter.js";

const DIRECTORIES = ["", "a", "a/b", "a/b/c", "b", "b/a", "x"];
const RULES = ["*.log", "!keep.log", "b/", "/b", "c", "!c", "*.ts", "!a/*.ts", "tmp/", "**/c/*.md", "d*"];
const NAMES = ["keep.log", "z.log", "m.ts", "n.md", "c", "tmp", "d1"];

/** Git's reading, written the obvious way: every registered file whose directory holds the path, the last registered first. */
function referenceIgnores(files: ReadonlyArray<{ directory: string; rules: string }>, path: string, isDirectory: boolean): boolean {
  for (const file of [...files].reverse()) {
    if (file.directory && !path.startsWith(`${file.directory}/`)) continue;
    const relative = file.directory ? path.slice(file.directory.length + 1) : path;
    const verdict = ignore({ allowRelativePaths: true })
      .add(file.rules)
      .test(isDirectory ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

describe("PathFilter.ignores", () => {
  it("judges a path by its ancestors' ignore files as a scan of every registered file does, the deepest and latest first", () => {
    const root = mkdtempSync(join(tmpdir(), "sylk-path-filter-"));
    try {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              directory: fc.constantFrom(...DIRECTORIES),
              name: fc.constantFrom(".gitignore", ".sylkignore"),
              rules: fc.array(fc.constantFrom(...RULES), { maxLength: 4 }),
            }),
            { maxLength: 8 },
          ),
          fc.array(fc.record({ directory: fc.constantFrom(...DIRECTORIES), name: fc.constantFrom(...NAMES), isDirectory: fc.boolean() }), {
            minLength: 1,
            maxLength: 12,
          }),
          (ignoreFiles, paths) => {
            // Ancestors before descendants, as a walk registers them; a directory's files in the order met.
            const depth = (directory: string) => (directory === "" ? 0 : directory.split("/").length);
            const ordered = [...ignoreFiles].sort((a, b) => depth(a.directory) - depth(b.directory));
            const filter = new PathFilter(defaultConfig().index);
            const registered: Array<{ directory: string; rules: string }> = [];
            rmSync(root, { recursive: true, force: true });
            ordered.forEach(({ directory, name, rules }, index) => {
              const file = join(root, directory, `${index}${name}`);
              mkdirSync(join(root, directory), { recursive: true });
              writeFileSync(file, rules.join("\n"));
              filter.registerIgnoreFile(directory, file);
              registered.push({ directory, rules: rules.join("\n") });
            });
            for (const { directory, name, isDirectory } of paths) {
              const path = directory ? `${directory}/${name}` : name;
              expect(filter.ignores(path, isDirectory), `${path}${isDirectory ? "/" : ""}`).toBe(
                referenceIgnores(registered, path, isDirectory),
              );
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("PathFilter.judgeIn", () => {
  it("leaves out a directory's entries exactly as judging each (excluded names, paths and patterns, then git's reading) would", () => {
    const root = mkdtempSync(join(tmpdir(), "sylk-path-filter-"));
    const config = { ...defaultConfig().index, excludePaths: ["tmp", "a/b/c"], excludePatterns: ["*.md", "b/**/d*"] };
    try {
      fc.assert(
        fc.property(
          fc.array(
            fc.record({ directory: fc.constantFrom(...DIRECTORIES), rules: fc.array(fc.constantFrom(...RULES), { maxLength: 4 }) }),
            { maxLength: 8 },
          ),
          fc.constantFrom(...DIRECTORIES),
          fc.uniqueArray(fc.constantFrom(...NAMES, ".git"), { maxLength: NAMES.length + 1 }),
          fc.boolean(),
          (ignoreFiles, directory, names, isDirectory) => {
            const depth = (path: string) => (path === "" ? 0 : path.split("/").length);
            const ordered = [...ignoreFiles].sort((a, b) => depth(a.directory) - depth(b.directory));
            const filter = new PathFilter(config);
            const registered: Array<{ directory: string; rules: string }> = [];
            rmSync(root, { recursive: true, force: true });
            ordered.forEach(({ directory: at, rules }, index) => {
              const file = join(root, at, `${index}.gitignore`);
              mkdirSync(join(root, at), { recursive: true });
              writeFileSync(file, rules.join("\n"));
              filter.registerIgnoreFile(at, file);
              registered.push({ directory: at, rules: rules.join("\n") });
            });
            const expected = names.map((name) => {
              const path = directory ? `${directory}/${name}` : name;
              const excluded = isDirectory ? filter.excludesDirectory(name, path) : filter.excludesFile(name, path);
              return excluded || referenceIgnores(registered, path, isDirectory);
            });
            expect(filter.judgeIn(directory, names, isDirectory)).toEqual(expected);
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
