import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PathTokenizer, queryTerms, tokenize, tokenizePath } from "../../src/parsing/code-tokenizer.js";

describe("code tokenizer", () => {
  it("keeps identifiers whole and splits camelCase, acronyms and digits", () => {
    expect(tokenize("parseHTTPHeader")).toEqual(["parsehttpheader", "parse", "http", "header"]);
    expect(tokenize("XMLHttpRequest")).toEqual(["xmlhttprequest", "xml", "http", "request"]);
    expect(tokenize("getHTTPResponse2")).toEqual(["gethttpresponse2", "get", "http", "response"]);
  });

  it("splits snake_case and strips leading and trailing underscores", () => {
    expect(tokenize("user_account_id")).toEqual(["user_account_id", "user", "account", "id"]);
    expect(tokenize("__init__")).toEqual(["init"]);
    expect(tokenize("$scope")).toEqual(["scope"]);
  });

  it("keeps two-letter technical terms and drops one-letter tokens, numbers and stop words", () => {
    expect(tokenize("the db io ui fs id x 42 is a of")).toEqual(["db", "io", "ui", "fs", "id"]);
  });

  it("drops very long runs such as hashes", () => {
    expect(tokenize(`hash ${"a".repeat(64)}`)).toEqual(["hash"]);
  });

  it("tokenises natural-language queries without duplicates", () => {
    expect(queryTerms("fix: allow exiting process before optimizer cleanup is done; fix twice")).toEqual([
      "fix",
      "allow",
      "exiting",
      "process",
      "optimizer",
      "cleanup",
      "done",
      "twice",
    ]);
  });

  it("tokenises paths into directories, file names and stems", () => {
    expect(tokenizePath("packages/create-vite/src/indexFile.ts")).toEqual([
      "packages",
      "create",
      "vite",
      "src",
      "indexfile",
      "index",
      "file",
      "ts",
    ]);
  });

  it("treats non-ASCII letters as word characters", () => {
    expect(tokenize("naïve café Größe")).toEqual(["naïve", "café", "größe"]);
  });

  it("gives a path's tokens in tokenizePath's order when the directory's are kept from the path before", () => {
    const segment = fc.oneof(
      fc.constantFrom("src", "parseHTTP", "a_b", "v2", "index.ts", ".github", "the", "x", ""),
      fc.string({ maxLength: 8 }),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((segments) => segments.join("/"));
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 30 }), (paths) => {
        const tokenizer = new PathTokenizer();
        // Sorted, as files reach a worker, so that neighbours share their directory; and each path twice.
        for (const each of [...paths].sort().flatMap((one) => [one, one])) expect(tokenizer.tokens(each)).toEqual(tokenizePath(each));
      }),
      { numRuns: 300 },
    );
  });
});
