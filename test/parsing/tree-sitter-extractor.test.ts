import { describe, expect, it } from "vitest";
import { definitionsAndComments, TreeSitterExtractor } from "../../src/parsing/tree-sitter-extractor.js";

const extractor = new TreeSitterExtractor();

const SAMPLES: Record<string, { source: string; symbols: Array<[string, string]> }> = {
  typescript: {
    source: `// Session store.\nexport interface Session { id: string }\nexport type Id = string;\nexport enum Mode { A }\nexport class SessionStore {\n  get(id: Id) { return id; }\n}\nexport const makeStore = () => new SessionStore();\nexport function helper() {}\n`,
    symbols: [
      ["Session", "interface"],
      ["Id", "type"],
      ["Mode", "enum"],
      ["SessionStore", "class"],
      ["get", "method"],
      ["makeStore", "function"],
      ["helper", "function"],
    ],
  },
  tsx: {
    source: `export function Button(props: { label: string }) {\n  return <button>{props.label}</button>;\n}\n`,
    symbols: [["Button", "function"]],
  },
  javascript: {
    source: `class Parser {\n  parse(text) { return text; }\n}\nfunction tokenize() {}\nconst VERSION = 3;\n`,
    symbols: [
      ["Parser", "class"],
      ["parse", "method"],
      ["tokenize", "function"],
      ["VERSION", "variable"],
    ],
  },
  python: {
    source: `"""Invoices."""\nRATE = 3\n\nclass Invoice:\n    """An invoice."""\n    @property\n    def total(self):\n        return 1\n\ndef render(order):\n    return order\n`,
    symbols: [
      ["RATE", "variable"],
      ["Invoice", "class"],
      ["total", "method"],
      ["render", "function"],
    ],
  },
  go: {
    source: `package main\n\n// Server serves.\ntype Server struct{}\ntype Handler interface{ Serve() }\nfunc (s *Server) Start() {}\nfunc main() {}\nconst Port = 80\n`,
    symbols: [
      ["Server", "struct"],
      ["Handler", "interface"],
      ["Start", "method"],
      ["main", "function"],
      ["Port", "variable"],
    ],
  },
  rust: {
    source: `/// A point.\npub struct Point { x: i32 }\npub trait Shape { fn area(&self) -> f64; }\nimpl Shape for Point {\n    fn area(&self) -> f64 { 0.0 }\n}\npub enum Kind { A }\nfn main() {}\n`,
    symbols: [
      ["Point", "struct"],
      ["Shape", "trait"],
      ["area", "method"],
      ["Shape for Point", "impl"],
      ["area", "method"],
      ["Kind", "enum"],
      ["main", "function"],
    ],
  },
  java: {
    source: `/** Greeter. */\npublic class Greeter {\n  public Greeter() {}\n  public String greet(String name) { return name; }\n}\ninterface Polite {}\n`,
    symbols: [
      ["Greeter", "class"],
      ["Greeter", "method"],
      ["greet", "method"],
      ["Polite", "interface"],
    ],
  },
  c: {
    source: `/* math */\nstruct vec { int x; };\ntypedef int score_t;\nint add(int a, int b) { return a + b; }\nint prototype(void);\n`,
    symbols: [
      ["vec", "struct"],
      ["score_t", "type"],
      ["add", "function"],
      ["prototype", "function"],
    ],
  },
  cpp: {
    source: `namespace geo {\nclass Circle {\n public:\n  double area() const;\n};\n}\ndouble geo::Circle::area() const { return 1.0; }\n`,
    symbols: [
      ["geo", "module"],
      ["Circle", "class"],
      ["area", "method"],
      ["geo::Circle::area", "method"],
    ],
  },
};

describe("TreeSitterExtractor", () => {
  for (const [language, sample] of Object.entries(SAMPLES)) {
    it(`extracts ${language} symbols and comments`, async () => {
      const extraction = await extractor.extract(sample.source, language);
      expect(extraction.hasError).toBe(false);
      expect(extraction.symbols.map((symbol) => [symbol.name, symbol.kind])).toEqual(sample.symbols);
      for (const symbol of extraction.symbols) {
        expect(symbol.startLine).toBeGreaterThanOrEqual(1);
        expect(symbol.endLine).toBeGreaterThanOrEqual(symbol.startLine);
      }
    });
  }

  it("gives line ranges and parents", async () => {
    const { symbols, comments } = await extractor.extract(SAMPLES.typescript?.source ?? "", "typescript");
    expect(symbols.find((symbol) => symbol.name === "SessionStore")).toMatchObject({ startLine: 5, endLine: 7 });
    expect(symbols.find((symbol) => symbol.name === "get")).toMatchObject({ startLine: 6, endLine: 6, parent: "SessionStore" });
    expect(comments).toContain("Session store.");
  });

  it("keeps Python docstrings and counts decorators in a definition", async () => {
    const { symbols, comments } = await extractor.extract(SAMPLES.python?.source ?? "", "python");
    expect(comments).toContain('"""Invoices."""');
    expect(comments).toContain('"""An invoice."""');
    expect(symbols.find((symbol) => symbol.name === "total")).toMatchObject({ startLine: 6, endLine: 8 });
  });

  it("recovers what it can from a file with syntax errors", async () => {
    const extraction = await extractor.extract("function ok() {}\nfunction broken( {\n", "javascript");
    expect(extraction.hasError).toBe(true);
    expect(extraction.symbols.map((symbol) => symbol.name)).toContain("ok");
  });

  it("supports C#, Ruby, PHP and Bash as well", async () => {
    expect((await extractor.extract("class A { void M() {} }", "csharp")).symbols.map((s) => s.name)).toEqual(["A", "M"]);
    expect((await extractor.extract("class A\n  def m; end\nend\n", "ruby")).symbols.map((s) => s.name)).toEqual(["A", "m"]);
    expect((await extractor.extract("<?php\nfunction f() {}\n", "php")).symbols.map((s) => s.name)).toEqual(["f"]);
    expect((await extractor.extract("deploy() {\n  echo hi\n}\n", "bash")).symbols.map((s) => s.name)).toEqual(["deploy"]);
  });

  // Grammars whose query is node types alone take their nodes from a descendants walk: the same nodes, in the same order.
  const WALKED: Record<string, string> = {
    rust: `//! Crate.\n${SAMPLES.rust?.source ?? ""}mod inner {\n    /* block */\n    fn nested() { fn deeper() {} }\n    macro_rules! m { () => {} }\n}\nfn broken( {\n`,
    java: `${SAMPLES.java?.source ?? ""}// line\nenum E { A; void f() {} }\nrecord R(int x) {}\n`,
    csharp: "namespace N { /* c */ class A { int P { get; } void M() {} } struct S {} delegate void D(); }\n",
    ruby: "# m\nmodule M\n  class A\n    def m; end\n    def self.s; end\n  end\nend\nclass B < A; end\n",
    php: "<?php\n// c\nnamespace N;\ninterface I {}\ntrait T {}\nclass A { function m() {} }\nfunction f() {}\n",
    bash: "# c\ndeploy() {\n  inner() { :; }\n}\nfunction other { echo; }\n",
  };
  for (const [language, source] of Object.entries(WALKED)) {
    it(`finds ${language}'s definitions and comments by a walk, as its query does`, async () => {
      const grammar = await extractor.grammar(language);
      expect(grammar.walk).toBeDefined();
      const tree = grammar.parser.parse(source);
      if (!tree) throw new Error("no tree");
      try {
        const nodes = (by: "walk" | "query") =>
          [...definitionsAndComments(grammar, tree.rootNode, by)].map(([node, comment]) => [
            node.type,
            node.startIndex,
            node.endIndex,
            comment,
          ]);
        const walked = nodes("walk");
        expect(walked.length).toBeGreaterThan(3);
        expect(walked).toEqual(nodes("query"));
      } finally {
        tree.delete();
      }
    });
  }

  it("keeps the query where a grammar has contextual patterns", async () => {
    for (const language of ["javascript", "typescript", "python", "go", "c", "cpp"])
      expect((await extractor.grammar(language)).walk).toBeUndefined();
  });

  it("knows which languages it cannot parse", () => {
    expect(extractor.supports("typescript")).toBe(true);
    expect(extractor.supports("markdown")).toBe(false);
  });
});
