import { describe, expect, it } from "vitest";
import { isCorrection } from "../../src/signals/correction.js";

describe("isCorrection", () => {
  it.each([
    "no, the other file",
    "No. That's wrong",
    "that's not what I asked",
    "undo that",
    "I said the test file",
    "You forgot the import",
    "wrong function",
  ])("%j opens with a correction", (prompt) => expect(isCorrection(prompt)).toBe(true));
  it.each([
    "now add tests",
    "no need to change the docs",
    "add a note: no tests needed here",
    "notice the bug in parse()",
    "node scripts/x.mjs fails",
  ])("%j does not", (prompt) => expect(isCorrection(prompt)).toBe(false));
});
