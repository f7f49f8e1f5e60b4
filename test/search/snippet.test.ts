import { describe, expect, it } from "vitest";
import { snippetFor } from "../../src/search/snippet.js";

const lines = [
  "// header",
  "import x from 'y';",
  "",
  "function helper() {}",
  "",
  "export function validateToken(token: string) {",
  "  return token.length > 0;",
  "}",
  "",
  "const unrelated = 1;",
];
const content = lines.join("\n");

describe("snippetFor", () => {
  it("shows the window around the line holding the most query terms, from the line before it", () => {
    // Line 6 holds both terms; the window of six starts on line 5.
    expect(snippetFor(content, "validate token").split("\n")).toEqual(lines.slice(4, 10));
  });

  it("shows the chunk's head when no line holds a query term, and cuts long lines", () => {
    expect(snippetFor(content, "nothing here matches").split("\n")[0]).toBe("// header");
    const long = `${"x".repeat(300)}\nsecond`;
    expect(snippetFor(long, "second")).toBe(`${"x".repeat(200)}…\nsecond`);
  });
});
