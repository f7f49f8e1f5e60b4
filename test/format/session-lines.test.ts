import { describe, expect, it } from "vitest";
import { formatLocalTime, sessionLine } from "../../src/format/session-lines.js";

describe("times", () => {
  it("are shown on the user's clock, with its zone", () => {
    const moment = Date.UTC(2026, 10, 25, 10, 18);
    // The test process's own zone: the formatting follows Date's local time, and names the offset.
    const local = new Date(moment);
    const expectedHour = String(local.getHours()).padStart(2, "0");
    expect(formatLocalTime(moment)).toMatch(new RegExp(`^2026-11-2\\d ${expectedHour}:\\d\\d (UTC|[+-]\\d\\d:\\d\\d)$`));
    expect(
      sessionLine({
        id: "0123456789",
        updatedAt: moment,
        model: "m",
        prompts: 2,
        title: "t",
        usage: { inputTokens: 1_000, outputTokens: 5, cacheReadTokens: 0 },
      }),
    ).toMatch(/^01234567 {2}2026-11-2\d \d\d:\d\d \S+ {2}m {2}2 prompts, 1,005 tokens {2}t$/);
  });
});
