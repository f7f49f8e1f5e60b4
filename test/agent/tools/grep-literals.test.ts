import { describe, expect, it } from "vitest";
import { literalRunsPerAlternative, requiredLiterals } from "../../../src/agent/tools/grep-literals.js";
import { Prefilter } from "../../../src/agent/tools/grep-matcher.js";

describe("the literals a grep pattern requires", () => {
  it("reads literal runs, escaped punctuation included, and ends them at anything else", () => {
    expect(requiredLiterals("createUserAccount\\(")).toEqual(["createUserAccount("]);
    expect(literalRunsPerAlternative("function (\\w+)\\(")).toEqual([["function ", "("]]);
    expect(requiredLiterals("^\\s*import .* from")).toEqual(["import "]);
    expect(literalRunsPerAlternative("a.b[cd]e\\bf")).toEqual([["a", "b", "e", "f"]]);
  });

  it("drops what a quantifier makes optional and keeps one of what it repeats", () => {
    expect(literalRunsPerAlternative("colou?r")).toEqual([["colo", "r"]]);
    expect(literalRunsPerAlternative("ab+c")).toEqual([["ab", "c"]]);
    expect(literalRunsPerAlternative("xy*z")).toEqual([["x", "z"]]);
    expect(literalRunsPerAlternative("ab{0,2}c")).toEqual([["a", "c"]]);
    expect(literalRunsPerAlternative("ab{2}c")).toEqual([["ab", "c"]]);
    expect(literalRunsPerAlternative("(foo)?bar")).toEqual([["bar"]]);
  });

  it("gives one literal per top-level alternative, and none when one alternative promises nothing", () => {
    expect(requiredLiterals("TODO|FIXME|XXX")).toEqual(["TODO", "FIXME", "XXX"]);
    expect(requiredLiterals("(a|b)cd")).toEqual(["cd"]);
    expect(requiredLiterals("TODO|\\w+")).toBeUndefined();
    expect(requiredLiterals("[A-Z]{12}")).toBeUndefined();
  });

  it("promises nothing for escapes it does not read (code points, back-references)", () => {
    expect(requiredLiterals("\\u0041BC")).toBeUndefined();
    expect(requiredLiterals("(a)\\1xyz")).toBeUndefined();
    expect(requiredLiterals("\\x41yz")).toBeUndefined();
  });
});

describe("the prefilter", () => {
  const bytes = (text: string) => Buffer.from(text, "utf8");

  it("passes a file holding one of the literals, case-insensitively when asked", () => {
    const filter = Prefilter.of("TODO|FIXME", "") as Prefilter;
    expect(filter.mayMatch(bytes("// FIXME later"))).toBe(true);
    expect(filter.mayMatch(bytes("// fixme later"))).toBe(false);
    const folded = Prefilter.of("fixme", "i") as Prefilter;
    expect(folded.mayMatch(bytes("// FixMe later"))).toBe(true);
    expect(folded.mayMatch(bytes("// fix me"))).toBe(false);
    expect((Prefilter.of("ÉTÉ", "i") as Prefilter).mayMatch(bytes("un été chaud"))).toBe(true);
  });

  it("is off for a literal a masking marker could supply, and for patterns without literals", () => {
    expect(Prefilter.of("REDACTED", "")).toBeUndefined();
    expect(Prefilter.of("aws-access", "i")).toBeUndefined();
    expect(Prefilter.of("x\\]", "")).toBeUndefined();
    expect(Prefilter.of("^\\s*$", "")).toBeUndefined();
  });
});
