import { describe, expect, it } from "vitest";
import { terminalJson } from "../../src/format/terminal-json.js";

describe("terminalJson", () => {
  it("writes DEL, C1 controls and the characters that reorder or hide text as \\u escapes", () => {
    const value = { text: "a\u007fb\u009b2Kc\u202ed\u200be\u{e0041}f", ok: "plain é 日本 👩‍💻" };
    const line = terminalJson(value);
    expect(line).toBe('{"text":"a\\u007fb\\u009b2Kc\\u202ed\\u200be\\udb40\\udc41f","ok":"plain é 日本 👩\\u200d💻"}');
    expect(line).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  });

  it("is read back as exactly the same value", () => {
    const value = { answer: "\u001b]0;TITLE\u0007 \u009b31m \u2066x\u2069 \ufeff\u2028", list: [1, "\u00ad"], nothing: null };
    expect(JSON.parse(terminalJson(value))).toEqual(value);
  });
});
