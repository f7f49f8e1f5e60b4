import { describe, expect, it } from "vitest";
import { TrigramProbe, trigramSketch } from "../../src/search/trigram-sketch.js";

/** A seeded generator (mulberry32): the same texts on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789 .(){};\n";

function randomText(random: () => number, length: number): string {
  let text = "";
  for (let index = 0; index < length; index++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return text;
}

const sketchOf = (text: string) => trigramSketch(Buffer.from(text, "utf8"));
const probe = (literal: string, ignoreCase = false) => TrigramProbe.of([[literal]], ignoreCase);

describe("trigramSketch and TrigramProbe: which files may hold a literal, without reading them", () => {
  it("never rules out a file that holds the literal, in its case or, ignoring case, in any other", () => {
    const random = seeded(7);
    for (let trial = 0; trial < 200; trial++) {
      const text = randomText(random, 20 + Math.floor(random() * 4000));
      const sketch = sketchOf(text);
      const start = Math.floor(random() * (text.length - 3));
      const literal = text.slice(start, start + 3 + Math.floor(random() * 20));
      expect(probe(literal)?.mayHold(sketch) ?? true, literal).toBe(true);
      const recased = [...literal].map((character) => (random() < 0.5 ? character.toUpperCase() : character.toLowerCase())).join("");
      expect(probe(recased, true)?.mayHold(sketch) ?? true, recased).toBe(true);
    }
  });

  it("rules out nearly every file that lacks a literal of a dozen characters", () => {
    const random = seeded(11);
    let passed = 0;
    let lacking = 0;
    for (let trial = 0; trial < 500; trial++) {
      const text = randomText(random, 200 + Math.floor(random() * 8000));
      const literal = randomText(random, 12);
      if (text.includes(literal)) continue;
      lacking++;
      if (probe(literal)?.mayHold(sketchOf(text))) passed++;
    }
    expect(lacking).toBeGreaterThan(450);
    // About two bits per distinct trigram: each of a literal's ten trigrams passes by chance with p ≈ 0.4.
    expect(passed / lacking).toBeLessThan(0.01);
  });

  it("rules out nearly every file holding a camelCase literal's words apart, which the full-text terms cannot", () => {
    const random = seeded(5);
    const word = () =>
      randomText(random, 3 + Math.floor(random() * 5))
        .replace(/[^a-z]/gi, "x")
        .toLowerCase();
    let passed = 0;
    for (let trial = 0; trial < 300; trial++) {
      const words = [word(), word(), word(), word()];
      const literal = words.map((each) => each[0]?.toUpperCase() + each.slice(1)).join("");
      // Every word the index would split the literal into, in code around it, but never joined.
      const text = `${randomText(random, 50 + Math.floor(random() * 2000))}\nconst any = ${words.join(".")}; // ${words.join(" ")}\n`;
      if (text.toLowerCase().includes(literal.toLowerCase())) continue;
      if (probe(literal)?.mayHold(sketchOf(text))) passed++;
    }
    // Each joint of the words leaves about two of the literal's trigrams missing, each set by chance with p ≈ 0.3.
    expect(passed / 300).toBeLessThan(0.02);
    expect(probe("AnyJsObjectMember")?.mayHold(sketchOf("export type AnyJsObjectMemberName = 1;\n"))).toBe(true);
  });

  it("ignoring case, folds ASCII letters only, and keeps no trigram with a byte above 127 (é and É are other bytes)", () => {
    const sketch = sketchOf("const CAFÉ = 1;\n");
    expect(probe("café", true)?.mayHold(sketch)).toBe(true);
    expect(probe("Const", true)?.mayHold(sketch)).toBe(true);
    // Case-sensitively every byte counts: é is not in the file.
    expect(probe("café")?.mayHold(sketch)).toBe(false);
    // No ASCII trigram at all: nothing to look up.
    expect(probe("éé", true)).toBeUndefined();
  });

  it("passes a file if any alternative may be in it, and gives no probe when an alternative has no trigram", () => {
    const sketch = sketchOf("function parseBinding() {}\n");
    expect(TrigramProbe.of([["parseBinding"], ["missingName"]], false)?.mayHold(sketch)).toBe(true);
    expect(TrigramProbe.of([["missingName"], ["otherMissing"]], false)?.mayHold(sketch)).toBe(false);
    // `ab` has no trigram: that alternative could match anywhere.
    expect(TrigramProbe.of([["parseBinding"], ["ab"]], false)).toBeUndefined();
    // Every run of an alternative counts: `fn \w+_kind\(` needs both `fn ` and `_kind(`.
    expect(TrigramProbe.of([["fn ", "_kind("]], false)?.mayHold(sketchOf("fn token_kind(x)\n"))).toBe(true);
    expect(TrigramProbe.of([["fn ", "_kind("]], false)?.mayHold(sketchOf("fn token(x) // of some kind(s)\n"))).toBe(false);
  });

  it("sizes a sketch as a power of two from 8 bytes to 32 KB, about two bits per distinct trigram", () => {
    expect(sketchOf("").length).toBe(8);
    expect(sketchOf("ab").length).toBe(8);
    const random = seeded(3);
    const medium = sketchOf(randomText(random, 3000));
    expect(medium.length & (medium.length - 1)).toBe(0);
    expect(medium.length * 8).toBeGreaterThanOrEqual(2 * 2000);
    expect(medium.length * 8).toBeLessThanOrEqual(4 * 3000);
    const huge = trigramSketch(Buffer.from(Array.from({ length: 1_000_000 }, () => Math.floor(random() * 256))));
    expect(huge.length).toBe(32 * 1024);
    // A file sketched after a large one is sketched alone: nothing of the earlier file is left set.
    expect(probe("zzzzzz")?.mayHold(sketchOf("aaaaaaaaaa"))).toBe(false);
  });

  it("treats a sketch that is not a power of two long as holding everything", () => {
    expect(probe("anything")?.mayHold(new Uint8Array(0))).toBe(true);
    expect(probe("anything")?.mayHold(new Uint8Array(12))).toBe(true);
  });
});
