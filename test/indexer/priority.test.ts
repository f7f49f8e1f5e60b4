import { describe, expect, it } from "vitest";
import { DEFAULT_PRIORITY_PATHS } from "../../src/config/schema.js";
import { byPriority, calculatePriority } from "../../src/indexer/priority.js";

const now = Date.UTC(2026, 0, 31);
const hoursAgo = (hours: number) => now - hours * 3_600_000;

describe("indexing priority", () => {
  it("boosts recency: +100 within a day, +50 within a week, +25 within 30 days", () => {
    expect(calculatePriority("x.unknown", hoursAgo(1), [], now)).toBe(100);
    expect(calculatePriority("x.unknown", hoursAgo(24 * 3), [], now)).toBe(50);
    expect(calculatePriority("x.unknown", hoursAgo(24 * 20), [], now)).toBe(25);
    expect(calculatePriority("x.unknown", hoursAgo(24 * 40), [], now)).toBe(0);
  });

  it("boosts the first matching priority path by 50 minus its index", () => {
    const old = hoursAgo(24 * 365);
    expect(calculatePriority("cmd/main.unknown", old, DEFAULT_PRIORITY_PATHS, now)).toBe(50);
    expect(calculatePriority("src/a.unknown", old, DEFAULT_PRIORITY_PATHS, now)).toBe(49);
    expect(calculatePriority("handlers/a.unknown", old, DEFAULT_PRIORITY_PATHS, now)).toBe(41);
    expect(calculatePriority("other/src/a.unknown", old, DEFAULT_PRIORITY_PATHS, now)).toBe(0);
  });

  it("boosts extensions: +30 go/ts/tsx/py/rs, +20 js/jsx/java/cpp/c, +10 md/yaml/yml/json/toml", () => {
    const old = hoursAgo(24 * 365);
    for (const ext of ["go", "ts", "tsx", "py", "rs", "TS"]) expect(calculatePriority(`a.${ext}`, old, [], now)).toBe(30);
    for (const ext of ["js", "jsx", "java", "cpp", "c"]) expect(calculatePriority(`a.${ext}`, old, [], now)).toBe(20);
    for (const ext of ["md", "yaml", "yml", "json", "toml"]) expect(calculatePriority(`a.${ext}`, old, [], now)).toBe(10);
    expect(calculatePriority("a.h", old, [], now)).toBe(0);
  });

  it("adds the three boosts together", () => {
    expect(calculatePriority("src/app.ts", hoursAgo(2), DEFAULT_PRIORITY_PATHS, now)).toBe(100 + 49 + 30);
  });

  it("orders higher priority first, then by path", () => {
    const files = [
      { path: "b", priority: 10 },
      { path: "a", priority: 10 },
      { path: "c", priority: 99 },
    ];
    expect(files.sort(byPriority).map((file) => file.path)).toEqual(["c", "a", "b"]);
  });
});
