import { render } from "ink-testing-library";
import { stripVTControlCharacters } from "node:util";
import { createElement } from "react";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { preloadHighlighter } from "../../../src/tui/markdown/highlight.js";
import { MarkdownView } from "../../../src/tui/markdown/markdown-view.js";
import { createTheme, ThemeContext } from "../../../src/tui/theme.js";

// Chalk decides on colour when it is first imported: force it on, so that only NO_COLOR can turn it off.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "1";
});

const ANSWER = [
  "# Greeting module",
  "",
  "The **greet** function returns a *friendly* string; see `src/greet.ts` and [the docs](https://example.com/docs).",
  "",
  "```ts",
  "export function greet(name: string): string {",
  "  return `hello ${name}`; // the greeting",
  "}",
  "```",
  "",
  "1. Read it",
  "2. Change it",
  "   - keep the tests green",
  "",
  "> Quoted advice",
  "",
  "| name | lines |",
  "| --- | ---: |",
  "| greet.ts | 3 |",
  "| main.ts | 120 |",
].join("\n");

function draw(text: string, env: NodeJS.ProcessEnv = {}) {
  const instance = render(createElement(ThemeContext.Provider, { value: createTheme(env) }, createElement(MarkdownView, { text })));
  const raw = instance.lastFrame() ?? "";
  instance.unmount();
  return { raw, plain: stripVTControlCharacters(raw) };
}

beforeAll(() => preloadHighlighter());

describe("answers drawn as markdown", () => {
  it("shows headings, emphasis, code, lists, quotes and tables without their markup", () => {
    const { plain } = draw(ANSWER);
    const lines = plain.split("\n").map((line) => line.trimEnd());
    expect(lines[0]).toBe("Greeting module");
    expect(plain.replace(/\s+/g, " ")).toContain(
      "The greet function returns a friendly string; see src/greet.ts and the docs (https://example.com/docs).",
    );
    expect(plain).not.toMatch(/\*\*|```|^#/m);
    // Code is neither indented nor boxed: what is copied runs.
    expect(lines).toContain("export function greet(name: string): string {");
    expect(lines).toContain("  return `hello ${name}`; // the greeting");
    expect(plain).toMatch(/1\. Read it\n2\. Change it\n {3}◦ keep the tests green/);
    expect(plain).toMatch(/│ Quoted advice/);
    expect(plain).toContain("│ name     │ lines │");
    expect(plain).toContain("│ greet.ts │     3 │");
    expect(plain).toContain("│ main.ts  │   120 │");
  });

  it("colours code by its syntax, inline code and headings; bold stays bold", () => {
    const { raw } = draw(ANSWER);
    const keyword = /\u001b\[35mexport\u001b\[39m/; // magenta keyword
    expect(raw).toMatch(keyword);
    expect(raw).toMatch(/\u001b\[32m`hello \$\{name\}`\u001b\[39m/); // a template string green throughout
    expect(raw).toMatch(/\u001b\[90m\/\/ the greeting\u001b\[39m/); // grey comment
    expect(raw).toMatch(/\u001b\[36msrc\/greet\.ts\u001b\[39m/); // cyan inline code
    expect(raw).toMatch(/\u001b\[1mgreet\u001b\[22m/);
  });

  it("uses no colour with NO_COLOR, keeping bold and italics", () => {
    const { raw } = draw(ANSWER, { NO_COLOR: "1" });
    expect(raw).not.toMatch(/\u001b\[3[0-9]m|\u001b\[9[0-7]m/);
    expect(raw).toMatch(/\u001b\[1mgreet\u001b\[22m/);
    expect(raw).toMatch(/\u001b\[3mfriendly\u001b\[23m/);
  });

  it("shows a code block in an unknown language plain, and a table too wide for the terminal as records", () => {
    expect(draw("```klingon\nqapla' batlh\n```").plain.trim()).toBe("qapla' batlh");
    const wide = `| ${"column ".repeat(8)}| other |\n| --- | --- |\n| ${"value ".repeat(20)}| x |`;
    const { plain } = draw(wide);
    expect(plain).not.toContain("┌");
    expect(plain).toMatch(/column column .*:.*value value/s);
    expect(plain).toMatch(/other: x/);
  });

  it("shows the model's control characters escaped in every kind of block, its own styles still applied", () => {
    const text = [
      "# Title \u001b]0;PWNED\u0007",
      "",
      "Some **bold \u001b[8mhidden\u001b[28m** and `code \u009b2J` and &#27;[31mred&#x9b;2J",
      "",
      "```ts",
      "const x = 1;\u001b[2K\r// gone",
      "```",
      "",
      "| a | b |",
      "| --- | --- |",
      "| \u202eevil | \u0007 |",
    ].join("\n");
    const { raw, plain } = draw(text);
    expect(plain).toContain("Title \\e]0;PWNED\\x07");
    expect(plain).toContain("bold \\e[8mhidden\\e[28m and code \\x9b2J and \\e[31mred\\x9b2J");
    expect(plain).toContain("const x = 1;\\e[2K\\r// gone");
    expect(plain).toContain("│ \\u202eevil │ \\x07 │");
    expect(raw).toMatch(/\u001b\[1mbold /);
    const withoutStyles = raw.replace(/\u001b\[[0-9;]*m/g, "");
    expect(withoutStyles).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it("keeps the characters marked escapes for HTML", () => {
    expect(draw('Use `a && b` when x < y & "quoted" isn\'t.').plain.trim()).toBe('Use a && b when x < y & "quoted" isn\'t.');
  });
});
