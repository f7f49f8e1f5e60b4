import { describe, expect, it } from "vitest";
import { passageAround, snippetFor } from "../../src/search/snippet.js";

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

describe("passageAround", () => {
  const numbered = Array.from({ length: 100 }, (_, index) => `line ${String(index + 1).padStart(3, "0")} filler`);
  numbered[59] = "line 060 NEEDLE-00 here";
  const text = numbered.join("\n");

  it("gives the whole lines around the best match that fit, the match in the middle, numbered from 1", () => {
    // The match is 23 characters, the others 15 and a line break: 5 lines take 87, and one more line 103.
    const passage = passageAround(text, "NEEDLE-00", 100);
    expect(passage).toEqual({ text: numbered.slice(57, 62).join("\n"), fromLine: 58, toLine: 62, totalLines: 100 });
    expect(passage.text.length).toBe(87);
  });

  it("grows the other way when the text ends first, and is the whole text when it fits", () => {
    const atEnd = passageAround(text.replace("NEEDLE-00 here", "near the end").replace("line 099 filler", "line 099 NEEDLE"), "NEEDLE", 84);
    expect(atEnd).toMatchObject({ fromLine: 96, toLine: 100 });
    expect(passageAround(text, "NEEDLE-00", 10_000)).toEqual({ text, fromLine: 1, toLine: 100, totalLines: 100 });
  });

  it("cuts the matching line itself only when it alone is longer than the room", () => {
    const passage = passageAround(`short\n${"NEEDLE ".repeat(40)}\nshort`, "NEEDLE", 50);
    expect(passage).toMatchObject({ fromLine: 2, toLine: 2 });
    expect(passage.text).toBe("NEEDLE ".repeat(40).slice(0, 50));
  });
});
