import { describe, expect, it } from "vitest";
import { tokenize } from "../../src/parsing/code-tokenizer.js";
import { stem } from "../../src/search/full-text-document.js";
import { guaranteedTerms } from "../../src/search/literal-terms.js";

describe("the full-text terms a literal guarantees", () => {
  it("counts only identifier parts whose both ends the literal fixes", () => {
    expect(guaranteedTerms("createUserAccount", false)).toEqual([stem("user")]);
    expect(guaranteedTerms("scanProject", false)).toEqual([]);
    expect(guaranteedTerms("createUserAccount(", false)).toEqual([stem("user"), stem("account")]);
    expect(guaranteedTerms("fn parse_module(", false)).toEqual(
      expect.arrayContaining([stem("parse_module"), stem("parse"), stem("module")]),
    );
    expect(guaranteedTerms("x_total_count", false)).toEqual([stem("total")]);
  });

  it("counts only whole bounded words case-insensitively, and leaves out stop words and short tokens", () => {
    expect(guaranteedTerms("createUserAccount(", true)).toEqual([]);
    expect(guaranteedTerms(" ParseModule(", true)).toEqual([stem("parsemodule")]);
    expect(guaranteedTerms(" return x ", false)).toEqual([]);
  });

  it("uses no word touching a character outside ASCII", () => {
    expect(guaranteedTerms("été fooBarBaz", false)).toEqual([stem("foo"), stem("bar")]);
    expect(guaranteedTerms("étéFooBarBaz", false)).toEqual([]);
    expect(guaranteedTerms("→fooBar(", false)).toEqual([stem("bar")]);
  });

  it("names terms that every text holding the literal is tokenized into, whatever surrounds it", () => {
    const literals = ["createUserAccount", "UserAccount(", "_parseHTTPHeader2x", "HTTPServer", " get_value ", "fooBAR", "a1b2c3d"];
    const contexts = ["", "x", "X", "_", "$", "9", "Ab", "XY", " ", "é", "(", "zZ"];
    for (const literal of literals) {
      const terms = guaranteedTerms(literal, false);
      for (const before of contexts) {
        for (const after of contexts) {
          const tokens = new Set(tokenize(`${before}${literal}${after}`).map(stem));
          for (const term of terms) expect(tokens.has(term), `${term} in ${before}${literal}${after}`).toBe(true);
        }
      }
    }
  });
});
