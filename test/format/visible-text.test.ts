import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { visible, visibleText } from "../../src/format/visible-text.js";

/** Anything a terminal would act on or that hides or reorders text. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/u;

describe("visibleText", () => {
  it("shows the approval dialog's hidden deletion: ESC and CR as \\e and \\r", () => {
    const command = "rm -rf ./a.txt; touch ../x \u001b[2K\rnpm test";
    expect(visibleText(command)).toEqual({ text: "rm -rf ./a.txt; touch ../x \\e[2K\\rnpm test", escaped: true });
  });

  it("escapes every C0 control but line feed and tab, and DEL, by code point", () => {
    expect(visible("a\u0000b\u0007c\u0008d\u000be\u000cf\u001fg\u007fh")).toBe("a\\x00b\\x07c\\x08d\\x0be\\x0cf\\x1fg\\x7fh");
    for (let code = 0; code < 0x20; code++) {
      const character = String.fromCharCode(code);
      const shown = visible(character, { newlines: false, tabs: "escape" });
      expect(shown, `U+${code.toString(16)}`).not.toMatch(UNSAFE);
      expect(shown.startsWith("\\")).toBe(true);
    }
  });

  it("escapes every C1 control, the 8-bit CSI among them", () => {
    expect(visible("\u009b2K\u009d0;title\u009c")).toBe("\\x9b2K\\x9d0;title\\x9c");
    for (let code = 0x80; code <= 0x9f; code++) {
      expect(visible(String.fromCharCode(code))).toBe(`\\x${code.toString(16)}`);
    }
  });

  it("escapes the characters that reorder or hide text: bidi, zero-width, word joiner, BOM, tags", () => {
    const reordering = [
      "\u202a",
      "\u202b",
      "\u202c",
      "\u202d",
      "\u202e",
      "\u2066",
      "\u2067",
      "\u2068",
      "\u2069",
      "\u200e",
      "\u200f",
      "\u061c",
    ];
    const hiding = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029"];
    for (const character of [...reordering, ...hiding]) {
      const code = character.charCodeAt(0).toString(16).padStart(4, "0");
      expect(visible(`a${character}b`), `U+${code}`).toBe(
        code.length === 4 && character.charCodeAt(0) <= 0xff ? `a\\x${code.slice(2)}b` : `a\\u${code}b`,
      );
    }
    // Tag characters spell hidden ASCII ("ASCII smuggling").
    expect(visible("ok\u{e0069}\u{e0067}")).toBe("ok\\u{e0069}\\u{e0067}");
    // A lone surrogate is shown for what it is, not as a replacement character.
    expect(visible("a\ud800b")).toBe("a\\ud800b");
  });

  it("shows an OSC title sequence and an SGR conceal sequence instead of letting them act", () => {
    expect(visible("\u001b]0;TITLE\u0007done")).toBe("\\e]0;TITLE\\x07done");
    expect(visible("\u001b[8msecret\u001b[28m")).toBe("\\e[8msecret\\e[28m");
    expect(visible("\u001b[31mred\u001b[0m")).toBe("\\e[31mred\\e[0m");
  });

  it("keeps line breaks in multi-line text and shows them in a one-line field", () => {
    expect(visibleText("one\ntwo")).toEqual({ text: "one\ntwo", escaped: false });
    expect(visibleText("one\ntwo", { newlines: false })).toEqual({ text: "one\\ntwo", escaped: true });
    // A carriage return is never part of a line break here: it could rewrite the line.
    expect(visible("one\r\ntwo")).toBe("one\\r\ntwo");
  });

  it("expands a tab to the next 4-column stop of its line, escapes it, or keeps it", () => {
    expect(visibleText("\tx\nab\tc\nabcd\te")).toEqual({ text: "    x\nab  c\nabcd    e", escaped: false });
    // Columns are counted as the terminal draws them: a wide character takes two.
    expect(visible("日\tx")).toBe("日  x");
    // An escape counts with its visible width.
    expect(visible("\u001b\tx")).toBe("\\e  x");
    expect(visibleText("a\tb", { tabs: "escape" })).toEqual({ text: "a\\tb", escaped: true });
    expect(visibleText("a\tb", { tabs: "keep" })).toEqual({ text: "a\tb", escaped: false });
  });

  it("drops colour sequences when asked (a program's output), and escapes everything else", () => {
    expect(visibleText("\u001b[32m✓\u001b[39m passed \u009b1;31mX", { dropColours: true })).toEqual({ text: "✓ passed X", escaped: false });
    expect(visible("\u001b[32mok\u001b[2K\rgone", { dropColours: true })).toBe("ok\\e[2K\\rgone");
  });

  it("keeps a zero-width joiner between emoji (one picture) and escapes it anywhere else", () => {
    expect(visibleText("👩‍💻 and 👨🏽‍🚀")).toEqual({ text: "👩‍💻 and 👨🏽‍🚀", escaped: false });
    expect(visible("rm\u200d -rf")).toBe("rm\\u200d -rf");
    expect(visible("👩\u200d")).toBe("👩\\u200d");
  });

  it("leaves ordinary text alone, wide characters and emoji included", () => {
    const text = "Überprüfe 日本語 — naïve café 🎉 `code` \\e is a backslash and an e";
    expect(visibleText(text)).toEqual({ text, escaped: false });
  });

  it("is idempotent, leaves nothing a terminal acts on, and Ink's width of the result is its length for ASCII input", () => {
    const characters = fc.oneof(
      fc.constantFrom(
        "\u001b",
        "\r",
        "\n",
        "\t",
        "\u0007",
        "\u009b",
        "\u202e",
        "\u200b",
        "\u2066",
        "\ufeff",
        "\u200d",
        "👩",
        "日",
        "[",
        "m",
        ";",
      ),
      fc.string({ unit: "grapheme-ascii", maxLength: 3 }),
      fc.string({ unit: "binary", maxLength: 2 }),
    );
    fc.assert(
      fc.property(
        fc.array(characters, { maxLength: 40 }),
        fc.boolean(),
        fc.constantFrom("expand", "escape", "keep") as fc.Arbitrary<"expand" | "escape" | "keep">,
        (parts, newlines, tabs) => {
          const text = parts.join("");
          const once = visible(text, { newlines, tabs });
          expect(visible(once, { newlines, tabs })).toBe(once);
          const allowed = new Set([...(newlines ? ["\n"] : []), ...(tabs === "keep" ? ["\t"] : [])]);
          const left = [...once].filter((character) => UNSAFE.test(character) && !allowed.has(character) && character !== "\u200d");
          expect(left).toEqual([]);
          if (/^[\x00-\x7f]*$/.test(text) && tabs !== "keep") {
            for (const line of once.split("\n")) expect(stringWidth(line)).toBe(line.length);
          }
        },
      ),
    );
  });
});
