import { describe, expect, it } from "vitest";
import { MAX_PARSE_BYTES, processFile } from "../../src/indexer/file-processor.js";
import { TreeSitterExtractor } from "../../src/parsing/tree-sitter-extractor.js";
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
});
