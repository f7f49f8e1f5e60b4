import { describe, expect, it } from "vitest";
import { splitLines } from "../../../src/agent/tools/file-text.js";
import { LineCandidates } from "../../../src/agent/tools/grep-lines.js";

/** The lines every search matched before: the text cut into lines, the pattern tried on each. */
function everyLine(text: string, regex: RegExp): Array<[number, string]> {
  return splitLines(text).flatMap((line, index): Array<[number, string]> => (regex.test(line) ? [[index + 1, line]] : []));
}

function candidateLines(text: string, pattern: string, flags: string): Array<[number, string]> {
  const regex = new RegExp(pattern, flags);
  const candidates = LineCandidates.of(pattern, flags);
  if (!candidates) throw new Error(`no literal in ${pattern}`);
  return [...candidates.lines(text)].filter(([, line]) => regex.test(line));
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const PIECES = [
  "foo",
  "Foo",
  "FOO",
  "bar",
  "fooBar",
  "x",
  " ",
  "\t",
  "\n",
  "\r\n",
  "\r",
  "\n\n",
  "été",
  "ÉTÉ",
  "_kind(",
  "fn ",
  "a.b",
  "axb",
  "😀",
  "",
];
const PATTERNS: Array<[string, string]> = [
  ["foo", ""],
  ["foo", "i"],
  ["fooBar|bar", ""],
  ["FOO|été", "i"],
  ["fn \\w+_kind\\(", ""],
  ["a\\.b", ""],
  ["^foo", ""],
  ["foo$", ""],
  ["o\\s+b", "i"],
  ["(?<=foo)Bar", ""],
  ["bar(?!x)", "i"],
  ["\\bfoo\\b", ""],
];

describe("LineCandidates", () => {
  it("finds the lines a line-by-line search finds, over seeded texts with every kind of line break", () => {
    const random = seeded(7);
    for (let sample = 0; sample < 400; sample++) {
      const text = Array.from({ length: Math.floor(random() * 60) }, () => PIECES[Math.floor(random() * PIECES.length)]).join("");
      for (const [pattern, flags] of PATTERNS)
        expect(candidateLines(text, pattern, flags), `${JSON.stringify(text)} /${pattern}/${flags}`).toEqual(
          everyLine(text, new RegExp(pattern, flags)),
        );
    }
  });

  it("numbers lines across blank lines, CRLF and a last line without a break", () => {
    const text = "one\r\n\r\ntwo foo\r\nthree\n\nfoo four\rfive\nsix foo";
    expect(candidateLines(text, "foo", "")).toEqual([
      [3, "two foo"],
      [6, "foo four\rfive"],
      [7, "six foo"],
    ]);
  });

  it("tries each line once however many literals it holds", () => {
    expect([...(LineCandidates.of("foo|bar", "") as LineCandidates).lines("foo bar foo\nbar")]).toEqual([
      [1, "foo bar foo"],
      [2, "bar"],
    ]);
  });

  it("promises nothing for a pattern without a literal in every alternative", () => {
    expect(LineCandidates.of("\\w+", "")).toBeUndefined();
    expect(LineCandidates.of("foo|\\d+", "")).toBeUndefined();
  });
});
