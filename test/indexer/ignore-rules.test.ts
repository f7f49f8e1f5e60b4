import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { IgnoreMemo, IgnoreRules } from "../../src/indexer/ignore-rules.js";

const RULES = ["target/", "*.log", "!keep.log", "/build", "docs/**/*.tmp", "node_modules", "!node_modules/kept/"].join("\n");

/** Paths of a tree: files and directories at several depths, some under ignored directories. */
function paths(count: number): string[] {
  const names = ["src", "target", "docs", "build", "node_modules", "kept", "deep"];
  const files = ["a.ts", "b.log", "keep.log", "c.tmp", "d.rs"];
  return Array.from({ length: count }, (_, index) => {
    const depth = 1 + (index % 4);
    const parts = Array.from({ length: depth }, (_, level) => `${names[(index >> level) % names.length]}${level > 1 ? index % 97 : ""}`);
    return index % 5 === 0 ? `${parts.join("/")}/` : `${parts.join("/")}/${files[index % files.length]}`;
  });
}

function usedAfterCollection(): number {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
  return getHeapStatistics().used_heap_size;
}

describe("an ignore file's rules", () => {
  it("judge every path as one Ignore does, across the starts over from the rules", () => {
    const plain = ignore({ allowRelativePaths: true }).add(RULES);
    const memo = new IgnoreMemo(7);
    const bounded = new IgnoreRules(RULES, memo);
    // A second file sharing the memo: its tests count towards the first's starting over too.
    const other = new IgnoreRules("*.ts", memo);
    const all = paths(5_000);
    for (const path of [...all, ...all.slice(0, 50)]) {
      expect(bounded.test(path), path).toEqual(plain.test(path));
      expect(other.test(path).ignored).toBe(path.endsWith(".ts"));
    }
    // The rules say something of these: the comparison is not of empty verdicts only.
    expect(all.filter((path) => plain.test(path).ignored).length).toBeGreaterThan(1_000);
    expect(all.filter((path) => plain.test(path).unignored).length).toBeGreaterThan(50);
  });

  it("remember a bounded number of paths together, where each Ignore remembers every path it judged", () => {
    const all = Array.from({ length: 300_000 }, (_, index) => `pkg${index % 900}/src/module${index}/file${index}.ts`);
    const base = usedAfterCollection();
    // Ten packages' ignore files, each judging its own share of the paths and then kept, as a walk keeps them.
    const plain = Array.from({ length: 10 }, () => ignore({ allowRelativePaths: true }).add(RULES));
    for (const [index, path] of all.entries()) plain[index % 10]?.test(path);
    const heldByPlain = usedAfterCollection() - base;
    const memo = new IgnoreMemo();
    const bounded = Array.from({ length: 10 }, () => new IgnoreRules(RULES, memo));
    for (const [index, path] of all.entries()) bounded[index % 10]?.test(path);
    const heldByBoth = usedAfterCollection() - base;
    expect(plain[0]?.test("x.log").ignored).toBe(true);
    expect(bounded[0]?.test("x.log").ignored).toBe(true);
    // 300k paths and their parents: 27.8 MB measured for the ten Ignores, 1.0 MB with one memo bounding them.
    expect(heldByPlain).toBeGreaterThan(12 << 20);
    expect(heldByBoth - heldByPlain).toBeLessThan(8 << 20);
  });
});
