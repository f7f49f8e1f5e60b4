import { describe, expect, it } from "vitest";
import { openProject } from "../../src/app/project-services.js";
import { MAX_PARSE_BYTES, processFile, SNAPSHOT_INDEXED_CHARS } from "../../src/indexer/file-processor.js";
import { TreeSitterExtractor } from "../../src/parsing/tree-sitter-extractor.js";
import { drainIndex } from "../helpers/drain.js";
import { createTempProject } from "../helpers/temp-project.js";

/** A tree-sitter extractor that records which files it was asked to parse. */
class CountingExtractor extends TreeSitterExtractor {
  parsed = 0;
  override async extract(source: string, language: string) {
    this.parsed++;
    return super.extract(source, language);
  }
}

describe("processFile", () => {
  it("takes a large file's symbols from definition lines instead of a parse, and chunks along them", async () => {
    const generated = [
      "// Generated file, do not edit by hand, see `xtask/codegen`",
      ...Array.from({ length: 2400 }, (_, index) => [
        `pub struct GeneratedNode${index} {`,
        "    pub(crate) syntax: SyntaxNode,",
        "}",
        `impl GeneratedNode${index} {`,
        "    pub fn syntax(&self) -> &SyntaxNode { &self.syntax }",
        "}",
      ]).flat(),
    ].join("\n");
    expect(generated.length).toBeGreaterThan(MAX_PARSE_BYTES);
    const project = createTempProject({ "src/generated/nodes.rs": generated, "src/small.rs": "pub fn tiny() {}\n" });
    try {
      const extractor = new CountingExtractor();
      const task = { root: project.root, chunkLines: 45, embeddingDimensions: 64 };
      const large = await processFile(task, { path: "src/generated/nodes.rs", size: generated.length, mtimeMs: 0, priority: 0 }, extractor);
      expect(extractor.parsed).toBe(0);
      expect(large).toMatchObject({
        status: "indexed",
        reason: null,
        description: "Generated file, do not edit by hand, see `xtask/codegen`",
      });
      expect(large.symbols.find((symbol) => symbol.name === "GeneratedNode700")).toMatchObject({
        kind: "struct",
        startLine: 4202,
        endLine: 4204,
      });
      expect(large.symbols.filter((symbol) => symbol.name === "syntax")).toHaveLength(2400);
      // Chunks break between definitions, never inside one.
      for (const chunk of large.chunks) expect(chunk.content.split("\n")[0]).toMatch(/^(\/\/|pub struct|impl)/);

      await processFile(task, { path: "src/small.rs", size: 17, mtimeMs: 0, priority: 0 }, extractor);
      expect(extractor.parsed).toBe(1);
    } finally {
      project.cleanup();
    }
  });

  it("indexes a test snapshot's head as one chunk and leaves its generated rest to grep", async () => {
    const header = [
      "---",
      "source: crates/biome_js_parser/tests/spec_test.rs",
      "expression: snapshot",
      "---",
      "## Input",
      "",
      "```js",
      "let tailMarker;",
      "```",
      "",
    ];
    const tree = Array.from(
      { length: 3000 },
      (_, index) => `    JsIdentifierBinding${index} { name_token: IDENT@${index} "value${index}" },`,
    );
    const long = [...header, "## AST", "", ...tree, "", "unreachableTailWord", ""].join("\n");
    const short = [...header, "## AST", "", ...tree.slice(0, 80), ""].join("\n");
    const project = createTempProject({
      "crates/parser/tests/error/binding.js.snap": long,
      "src/__snapshots__/view.test.ts.snap": short,
      "src/view.ts": Array.from({ length: 120 }, (_, index) => `export const value${index} = ${index};`).join("\n"),
    });
    try {
      const task = { root: project.root, chunkLines: 45, embeddingDimensions: 64 };
      const extractor = new TreeSitterExtractor();
      const file = (path: string, size: number) => ({ path, size, mtimeMs: 0, priority: 0 });

      const longSnapshot = await processFile(task, file("crates/parser/tests/error/binding.js.snap", long.length), extractor);
      expect(longSnapshot.chunks).toHaveLength(1);
      const [head] = longSnapshot.chunks;
      expect(head?.content.length).toBeLessThanOrEqual(SNAPSHOT_INDEXED_CHARS);
      expect(head?.content.length).toBeGreaterThan(SNAPSHOT_INDEXED_CHARS - 100);
      expect(head?.content).toMatch(/^---\nsource: crates\/biome_js_parser/);
      expect(head?.content).toMatch(/ \},$/); // cut at a line end
      expect(head?.terms.split(" ")).toContain("tailmark");
      expect(head?.terms).not.toContain("unreachabletailword");
      expect(head?.vector).not.toBeNull();
      // The manifest still describes the whole file.
      expect(longSnapshot.lineCount).toBe(long.split("\n").length - 1);
      expect(longSnapshot.chunks[0]?.startLine).toBe(1);

      const shortSnapshot = await processFile(task, file("src/__snapshots__/view.test.ts.snap", short.length), extractor);
      expect(shortSnapshot.chunks.map((chunk) => chunk.content)).toEqual([short.trimEnd()]);

      const source = await processFile(task, file("src/view.ts", 0), extractor);
      expect(source.chunks.length).toBeGreaterThan(1);
      expect(Math.max(...source.chunks.map((chunk) => chunk.endLine - chunk.startLine + 1))).toBeLessThanOrEqual(45);
    } finally {
      project.cleanup();
    }
  });
});

describe("test snapshots in the code index", () => {
  it("finds a snapshot by its head, one chunk, and leaves its generated rest out of the index", async () => {
    const tree = Array.from({ length: 2000 }, (_, index) => `    JsIdentifierBinding { name_token: IDENT@${index} "binding${index}" },`);
    const snapshot = [
      "---",
      "source: crates/biome_js_parser/tests/spec_test.rs",
      "---",
      "## Input",
      "",
      "let quarrelsomeWalrus = 1;",
      "",
      "## AST",
      ...tree,
      "lethargicPelicanDiagnostic",
      "",
    ].join("\n");
    expect(snapshot.length).toBeGreaterThan(4 * SNAPSHOT_INDEXED_CHARS);
    const project = createTempProject({
      "crates/parser/tests/specs/walrus.js.snap": snapshot,
      "crates/parser/src/walrus.rs": "pub fn parse_quarrelsome_walrus() {}\n",
    });
    const services = openProject({ root: project.root, env: project.env });
    try {
      await drainIndex(services);

      const fullText = async (query: string) =>
        (await services.codeSearcher.search(query, { limit: 10, signals: ["fulltext"] })).hits.map((hit) => hit.path);
      expect(await fullText("quarrelsomeWalrus")).toContain("crates/parser/tests/specs/walrus.js.snap");
      expect(await fullText("lethargicPelicanDiagnostic")).toEqual([]);
      expect(services.files.counts().chunks).toBe(2);
    } finally {
      await services.close();
      project.cleanup();
    }
  });
});
