import { describe, expect, it } from "vitest";
import {
  lineRanges,
  parseCobertura,
  parseGoProfile,
  parseIstanbulFinal,
  parseIstanbulSummary,
  parseLcov,
} from "../../../../src/agent/tools/role-tools/coverage-reports.js";
import { COBERTURA, GO_PROFILE, ISTANBUL_FINAL, ISTANBUL_SUMMARY, LCOV } from "./coverage-fixtures.js";

describe("coverage reports", () => {
  it("reads istanbul's json-summary as counts per file, without the total", () => {
    expect(parseIstanbulSummary(ISTANBUL_SUMMARY)).toEqual([
      { path: "/home/dev/shop/src/cart.ts", coveredLines: 28, totalLines: 40 },
      { path: "/home/dev/shop/src/money.ts", coveredLines: 17, totalLines: 20 },
    ]);
  });

  it("reads istanbul's full report by the lines statements start on, a line covered when any of them ran", () => {
    expect(parseIstanbulFinal(ISTANBUL_FINAL)).toEqual([
      { path: "/home/dev/shop/src/money.ts", coveredLines: 4, totalLines: 6, uncoveredLines: [5, 9] },
    ]);
  });

  it("reads lcov's DA lines per SF record", () => {
    expect(parseLcov(LCOV)).toEqual([
      { path: "src/cart.ts", coveredLines: 3, totalLines: 7, uncoveredLines: [5, 6, 7, 12] },
      { path: "src/money.ts", coveredLines: 2, totalLines: 2, uncoveredLines: [] },
    ]);
  });

  it("reads a go cover profile, a line covered when any block over it ran", () => {
    expect(parseGoProfile(GO_PROFILE)).toEqual([
      { path: "example.com/shop/cart/cart.go", coveredLines: 6, totalLines: 11, uncoveredLines: [16, 17, 21, 22, 23] },
      { path: "example.com/shop/money/money.go", coveredLines: 3, totalLines: 3, uncoveredLines: [] },
    ]);
  });

  it("reads Cobertura's classes, lines and sources", () => {
    expect(parseCobertura(COBERTURA)).toEqual({
      sources: ["/home/dev/api"],
      files: [
        { path: "app/users.py", coveredLines: 3, totalLines: 6, uncoveredLines: [5, 6, 9] },
        { path: "app/__init__.py", coveredLines: 3, totalLines: 3, uncoveredLines: [] },
      ],
    });
  });

  it("refuses what is not the format, rather than reading it as empty", () => {
    expect(() => parseIstanbulSummary('{"total": {"lines": "all"}}')).toThrow();
    expect(() => parseIstanbulFinal("[1, 2]")).toThrow();
    expect(() => parseLcov("just some text\n")).toThrow(/no SF: records/);
    expect(() => parseGoProfile("example.com/x.go:1.1,2.2 1 1\n")).toThrow(/mode:/);
    expect(() => parseGoProfile("mode: set\nnot a block\n")).toThrow(/malformed line/);
    expect(() => parseCobertura("<report/>")).toThrow(/no <coverage> element/);
  });

  it("turns line numbers into ranges", () => {
    expect(lineRanges([3, 4, 5, 9, 12, 13])).toEqual(["3-5", "9", "12-13"]);
    expect(lineRanges([7])).toEqual(["7"]);
    expect(lineRanges([])).toEqual([]);
  });
});
