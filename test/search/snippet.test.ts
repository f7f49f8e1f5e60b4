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
  it("shows the window around the line holding the most query terms, from the line before it unless that one is blank", () => {
    // Line 6 holds both terms; line 5 is blank, so the window starts on line 6 (and stops at the chunk's end).
    expect(snippetFor(content, "validate token").split("\n")).toEqual(lines.slice(5, 10));
    // Line 4 holds the term; the window of six starts on line 3 (blank), so on line 4, and ends before a blank line.
    expect(snippetFor(content, "helper").split("\n")).toEqual(lines.slice(3, 8));
  });

  it("shows the chunk's head when no line holds a query term, and cuts long lines", () => {
    expect(snippetFor(content, "nothing here matches").split("\n")[0]).toBe("// header");
    const long = `${"x".repeat(300)}\nsecond`;
    expect(snippetFor(long, "second")).toBe(`${"x".repeat(200)}…\nsecond`);
  });
});

describe("snippetFor's edges", () => {
  it("never opens or ends on a blank line, as a Markdown section's window would", () => {
    const readme = ["# Title", "", "Some text about deployment.", "", "## Deploy", "", "Run the deploy script.", ""].join("\n");
    const snippet = snippetFor(readme, "deploy script").split("\n");
    expect(snippet[0]?.trim()).not.toBe("");
    expect(snippet.at(-1)?.trim()).not.toBe("");
    expect(snippet).toContain("Run the deploy script.");
  });

  it("keeps a chunk that is only blank lines as one line", () => {
    expect(snippetFor("\n\n\n", "anything")).toBe("");
  });
});
