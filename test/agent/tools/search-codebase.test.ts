import { describe, expect, it, vi } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createSearchCodebaseTool, type CodeSearcher } from "../../../src/agent/tools/search-codebase.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import type { CodeSearchHit } from "../../../src/search/hybrid-code-searcher.js";

function hit(path: string, startLine: number, endLine: number, snippet: string, symbols: string[] = []): CodeSearchHit {
  return {
    chunkId: startLine,
    path,
    startLine,
    endLine,
    language: "typescript",
    symbols,
    score: 0.03,
    signals: {},
    snippet,
    content: snippet,
    fileLineCount: endLine,
    fileDescription: null,
  };
}

function searchWith(search: CodeSearcher["search"], input: Record<string, unknown>) {
  const registry = new ToolRegistry([createSearchCodebaseTool({ search })], new PermissionPolicy("bypass"));
  return registry.run(
    { id: "1", name: "search_codebase", input },
    { root: "/nowhere", signal: new AbortController().signal, extraDirectories: [] },
  );
}

describe("search_codebase", () => {
  it("shows each hit as path:start-end with its snippet and passes the limit on", async () => {
    const search = vi.fn<CodeSearcher["search"]>(async () => ({
      hits: [
        hit("src/auth/jwt.ts", 10, 24, "export function validateToken(token: string) {\n  return token.split('.').length === 3;", [
          "validateToken",
        ]),
        hit("src/server.ts", 1, 8, "app.use(auth);"),
      ],
      degraded: [],
    }));
    const result = await searchWith(search, { query: "where are tokens validated", limit: 5 });
    expect(search).toHaveBeenCalledWith("where are tokens validated", { limit: 5 });
    expect(result.isError).toBeFalsy();
    expect(result.output).toBe(
      "src/auth/jwt.ts:10-24 (validateToken)\nexport function validateToken(token: string) {\n  return token.split('.').length === 3;\n\n" +
        "src/server.ts:1-8\napp.use(auth);",
    );
    expect(result.display).toBe("Found 2 results for where are tokens validated");
    expect(result.relatedFiles).toEqual(["src/auth/jwt.ts", "src/server.ts"]);
  });

  it("uses 8 results by default and refuses more than 30", async () => {
    const search = vi.fn<CodeSearcher["search"]>(async () => ({ hits: [], degraded: [] }));
    await searchWith(search, { query: "x" });
    expect(search).toHaveBeenCalledWith("x", { limit: 8 });
    const tooMany = await searchWith(search, { query: "x", limit: 31 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.output).toContain("limit");
  });

  it("notes degraded signals", async () => {
    const result = await searchWith(async () => ({ hits: [hit("a.ts", 1, 2, "a")], degraded: ["vector search failed: no model"] }), {
      query: "a",
    });
    expect(result.output).toContain("[Degraded search: vector search failed: no model; results come from the remaining signal.]");
    expect(result.display).toContain("(degraded)");
  });

  it("says when nothing was found and when search is unavailable", async () => {
    const empty = await searchWith(async () => ({ hits: [], degraded: [] }), { query: "nothing" });
    expect(empty.output).toContain('No results for "nothing"');
    const failed = await searchWith(async () => Promise.reject(new Error("Search failed: index missing")), { query: "x" });
    expect(failed.isError).toBe(true);
    expect(failed.output).toContain("Code search is unavailable: Search failed: index missing");
  });

  it("masks secrets in snippets", async () => {
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const result = await searchWith(async () => ({ hits: [hit("a.ts", 1, 1, `const t = "${token}";`)], degraded: [] }), { query: "t" });
    expect(result.output).not.toContain(token);
  });
});
