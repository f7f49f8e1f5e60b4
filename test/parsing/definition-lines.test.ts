import { describe, expect, it } from "vitest";
import { definitionLines, leadingComments } from "../../src/parsing/definition-lines.js";

describe("definitionLines", () => {
  it("finds Rust items, impls and their functions as methods, with line ranges", () => {
    const source = [
      "// Generated file, do not edit by hand, see `xtask/codegen`",
      "use crate::syntax::SyntaxNode;",
      "",
      "#[derive(Clone, PartialEq)]",
      "pub struct JsArrayHole {",
      "    pub(crate) syntax: SyntaxNode,",
      "}",
      "",
      "impl AstNode for JsArrayHole {",
      "    fn can_cast(kind: SyntaxKind) -> bool {",
      "        kind == JS_ARRAY_HOLE",
      "    }",
      "",
      "    pub const unsafe fn new_unchecked(syntax: SyntaxNode) -> Self {",
      "        Self { syntax }",
      "    }",
      "}",
      "",
      "pub(crate) enum Kind { A, B }",
      "macro_rules! declare {",
      "    () => {};",
      "}",
      "",
    ].join("\n");
    expect(definitionLines(source, "rust")).toEqual([
      { name: "JsArrayHole", kind: "struct", startLine: 5, endLine: 7 },
      { name: "JsArrayHole", kind: "impl", startLine: 9, endLine: 17 },
      { name: "can_cast", kind: "method", startLine: 10, endLine: 12, parent: "JsArrayHole" },
      { name: "new_unchecked", kind: "method", startLine: 14, endLine: 17, parent: "JsArrayHole" },
      { name: "Kind", kind: "enum", startLine: 19, endLine: 19 },
      { name: "declare", kind: "macro", startLine: 20, endLine: 22 },
    ]);
  });

  it("finds TypeScript and JavaScript declarations, including arrow functions", () => {
    const source = [
      "export default class Parser {",
      "  parse() {}",
      "}",
      "export interface Options { strict: boolean }",
      "declare namespace Api {}",
      "export const render = async (node: Node) => node;",
      "const plain = 42;",
      "async function* walk(tree) {}",
    ].join("\n");
    expect(definitionLines(source, "typescript").map(({ name, kind, startLine }) => [name, kind, startLine])).toEqual([
      ["Parser", "class", 1],
      ["Options", "interface", 4],
      ["Api", "module", 5],
      ["render", "function", 6],
      ["walk", "function", 8],
    ]);
  });

  it("nests Python methods under their class", () => {
    const source = "class Invoice:\n    def total(self):\n        return 1\n\n\nasync def fetch():\n    pass\n";
    expect(definitionLines(source, "python")).toEqual([
      { name: "Invoice", kind: "class", startLine: 1, endLine: 3 },
      { name: "total", kind: "method", startLine: 2, endLine: 3, parent: "Invoice" },
      { name: "fetch", kind: "function", startLine: 6, endLine: 7 },
    ]);
  });

  it("knows nothing of languages it has no patterns for", () => {
    expect(definitionLines("fun main() {}", "kotlin")).toEqual([]);
  });
});

describe("leadingComments", () => {
  it("takes the comment lines a file starts with, not Rust attributes or code", () => {
    expect(leadingComments("\n//! Lexer for CSS.\n// Second line.\n#![allow(dead_code)]\nuse x;\n// later\n")).toBe(
      "//! Lexer for CSS.\n// Second line.",
    );
    expect(leadingComments("fn main() {}\n// not leading\n")).toBe("");
  });
});
