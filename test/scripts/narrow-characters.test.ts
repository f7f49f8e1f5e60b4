import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { narrowCodePoints, narrowTextPattern } from "../../scripts/lib/narrow-characters.mjs";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
type StringWidth = (text: string, options?: { ambiguousIsNarrow?: boolean }) => number;

/** The string-width Ink measures with: the copy scripts/bundle.mjs widens. */
async function inksStringWidth(): Promise<StringWidth> {
  const fromInk = createRequire(createRequire(join(REPO, "package.json")).resolve("ink"));
  const main = fromInk.resolve("string-width");
  const { default: stringWidth } = (await import(pathToFileURL(main).href)) as { default: StringWidth };
  return stringWidth;
}

let stringWidth: StringWidth;
let codePoints: number[];
let narrowText: RegExp;
beforeAll(async () => {
  stringWidth = await inksStringWidth();
  codePoints = narrowCodePoints(stringWidth);
  narrowText = new RegExp(narrowTextPattern(codePoints));
}, 60_000);

describe("the narrow-text shortcut given to Ink's string-width", () => {
  it("agrees with string-width on every string it takes, mixed with characters that join, vanish or are wide", () => {
    const joiners = ["\u0301", "\u200d", "\ufe0f", "\u200b", "\u00ad", "👩", "中", "ｱ", "\u1100\u1161", "🇫🇷", "✔\ufe0f", "\t"];
    const character = fc.oneof(
      fc.constantFrom(...codePoints.map((codePoint) => String.fromCodePoint(codePoint))),
      fc.constantFrom(...joiners),
      fc.string({ unit: "grapheme-ascii", maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        if (narrowText.test(text)) expect(stringWidth(text)).toBe(text.length);
      }),
      { numRuns: 3000 },
    );
  });

  it("takes none of what joins a neighbour or is wide, and every mark of the TUI's first frame", () => {
    for (const text of ["\u0301", "\u200d", "\ufe0f", "\u00ad", "中", "⌚", "a\u0301", "✔\ufe0f"])
      expect(narrowText.test(text)).toBe(false);
    expect(narrowText.test("╭─╮│╰─╯ ❯ Ask anything · /help — ✻ Sylk ⏺ ⎿ ✓ ✗ … → ↓ ░ █ ⚠")).toBe(true);
  });

  it("is in the bundle, in each of Ink's copies of string-width, and only where ambiguous characters count as narrow", () => {
    const bundle = join(REPO, "dist", "bundle");
    const code = readdirSync(bundle)
      .filter((name) => name.endsWith(".js"))
      .map((name) => readFileSync(join(bundle, name), "utf8"))
      .join("\n");
    const copies = code.match(/\/\/ node_modules\/[^\n]*string-width\/index\.js/g) ?? [];
    const widened = copies.filter((header) => !header.startsWith("// node_modules/string-width/"));
    expect(widened.length).toBeGreaterThan(0);
    expect(code.split("if (ambiguousIsNarrow && /^[").length - 1).toBe(widened.length);
    expect(code).toContain(`if (ambiguousIsNarrow && /${narrowTextPattern(codePoints)}/.test(string))`);
  });
});
