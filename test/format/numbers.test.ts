import { describe, expect, it } from "vitest";
import { describeProgress } from "../../src/format/index-progress.js";
import { formatBytes, formatCount, formatDuration, progressBar } from "../../src/format/numbers.js";

describe("numbers as sylk writes them", () => {
  it("counts with thousands separators, sizes in binary units, durations in the unit that reads best", () => {
    expect(formatCount(1234567.4)).toBe("1,234,567");
    expect([formatBytes(512), formatBytes(1536), formatBytes(20 * 1024 * 1024)]).toEqual(["512 B", "1.5 KiB", "20 MiB"]);
    expect([formatDuration(12.4), formatDuration(2500), formatDuration(125_000)]).toEqual(["12 ms", "2.5 s", "2 min 5 s"]);
  });

  it("draws a bar that never passes full", () => {
    expect(progressBar(8, 10, 10)).toBe("[████████░░] 80%");
    expect(progressBar(12, 10, 4)).toBe("[████] 100%");
  });

  it("says what indexing is doing, one line a phase", () => {
    expect(describeProgress({ phase: "scanning", indexed: 0, total: 0, failed: 0, elapsedMs: 0 })).toBe("Scanning project…");
    expect(describeProgress({ phase: "indexing", indexed: 1234, total: 1542, failed: 2, elapsedMs: 3000 })).toBe(
      "[████████████████░░░░] 80% - Indexed 1,234 / 1,542 files (411 files/s, 2 failed)",
    );
  });
});
