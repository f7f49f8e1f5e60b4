import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import {
  createShareContextTool,
  resolveSources,
  type ResolvedSources,
  type ResolveSourcesDeps,
  type ShareContextInput,
} from "../../../src/agent/tools/share-context.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import type { ContentEntry } from "../../../src/store/content-types.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
const context = () => ({ root: project.root, signal: new AbortController().signal, extraDirectories: [] });

beforeEach(() => {
  project = createTempProject({
    "src/auth.ts": "import x from 'y';\r\nexport function check() {\n  return true;\n}\n",
    "src/no-newline.ts": "one\ntwo",
    "src/empty.ts": "",
  });
});
afterEach(() => project.cleanup());

function deps(stored: Array<Pick<ContentEntry, "id" | "contentType" | "content" | "tokenCount">> = []) {
  const indexed: Array<{ path: string; start_line: number; end_line: number; content: string }> = [];
  const value: ResolveSourcesDeps = {
    root: project.root,
    getEntry: (id) => stored.find((entry) => entry.id === id),
    indexExcerpt: (excerpt) => {
      indexed.push(excerpt);
      return { id: `code-${indexed.length}`, tokenCount: Math.ceil(excerpt.content.length / 4) };
    },
  };
  return { deps: value, indexed };
}

describe("share_context", () => {
  it("hands the validated input to the host and confirms briefly", async () => {
    const submitted: ShareContextInput[] = [];
    const registry = new ToolRegistry(
      [createShareContextTool({ submit: (input) => void submitted.push(input) })],
      new PermissionPolicy("default"),
    );
    const result = await registry.run(
      {
        id: "1",
        name: "share_context",
        input: {
          answer: "check() in src/auth.ts decides.",
          sources: [{ path: "src/auth.ts", start_line: 2, end_line: 4 }, { entry_id: "e1" }],
          confidence: 0.7,
        },
      },
      context(),
    );
    expect(result.isError).toBeFalsy();
    expect(submitted).toEqual([
      {
        answer: "check() in src/auth.ts decides.",
        sources: [{ path: "src/auth.ts", start_line: 2, end_line: 4 }, { entry_id: "e1" }],
        confidence: 0.7,
      },
    ]);
    expect(result.output).toMatch(/^Shared your answer \(31 characters\) with 2 sources\. The consultation is answered/);
    // Everything was shared: the knowledge agent's run ends with the answer, no closing model call.
    expect(result.endsRun).toEqual({ response: "check() in src/auth.ts decides.", note: "answered through share_context" });
  });

  it("lists the problems the host reports", async () => {
    const tool = createShareContextTool({ submit: async () => ({ problems: ["entry e9: no stored entry has the id e9"] }) });
    const result = await tool.execute({ answer: "A.", sources: [{ entry_id: "e9" }] }, context());
    expect(result.output).toContain("These sources were not shared:\n- entry e9: no stored entry has the id e9");
    // It gets a turn to read which sources were not shared.
    expect(result.endsRun).toBeUndefined();
  });

  it("refuses more than 20 sources, a confidence outside 0–1 and unknown fields", async () => {
    const registry = new ToolRegistry([createShareContextTool({ submit: () => undefined })], new PermissionPolicy("default"));
    const run = (input: Record<string, unknown>) => registry.run({ id: "1", name: "share_context", input }, context());
    expect((await run({ answer: "A.", sources: Array.from({ length: 21 }, (_, index) => ({ entry_id: `e${index}` })) })).isError).toBe(
      true,
    );
    expect((await run({ answer: "A.", confidence: 1.5 })).isError).toBe(true);
    expect((await run({ answer: "A.", sources: [{ entry_id: "e1", path: "x" }] })).isError).toBe(true);
    expect((await run({ answer: "A." })).isError).toBeFalsy();
  });
});

describe("resolveSources", () => {
  it("resolves file ranges byte for byte, indexing each excerpt, and stored entries whole, in the order cited", () => {
    const { deps: resolveDeps, indexed } = deps([{ id: "e1", contentType: "agent_message", content: "We chose JWT.", tokenCount: 4 }]);
    const result = resolveSources(
      [
        { path: "src/auth.ts", start_line: 1, end_line: 2 },
        { entry_id: "e1" },
        { path: "./src/no-newline.ts", start_line: 2, end_line: 9 },
      ],
      resolveDeps,
    );
    expect(result.errors).toEqual([]);
    expect(result.entries).toEqual([
      {
        id: "code-1",
        content_type: "code_file",
        source: "src/auth.ts:1-2",
        content: "import x from 'y';\r\nexport function check() {\n",
        token_count: 12,
      },
      { id: "e1", content_type: "agent_message", source: "entry e1", content: "We chose JWT.", token_count: 4 },
      { id: "code-2", content_type: "code_file", source: "src/no-newline.ts:2-2", content: "two", token_count: 1 },
    ]);
    expect(indexed.map((excerpt) => [excerpt.path, excerpt.start_line, excerpt.end_line])).toEqual([
      ["src/auth.ts", 1, 2],
      ["src/no-newline.ts", 2, 2],
    ]);
  });

  it("reports what does not resolve, never inventing it, and keeps the rest", () => {
    mkdirSync(join(project.root, "dir"));
    const outside = join(project.root, "..", `outside-${Date.now()}.ts`);
    writeFileSync(outside, "secret\n");
    symlinkSync(outside, join(project.root, "link.ts"));
    const { deps: resolveDeps, indexed } = deps();
    let result: ResolvedSources;
    try {
      result = resolveSources(
        [
          { path: "src/missing.ts", start_line: 1, end_line: 2 },
          { entry_id: "nope" },
          { path: "../etc/passwd", start_line: 1, end_line: 1 },
          { path: "link.ts", start_line: 1, end_line: 1 },
          { path: "src/auth.ts", start_line: 9, end_line: 12 },
          { path: "src/auth.ts", start_line: 3, end_line: 2 },
          { path: "src/empty.ts", start_line: 1, end_line: 1 },
          { path: "dir", start_line: 1, end_line: 1 },
          { path: "src/auth.ts", start_line: 3, end_line: 3 },
        ],
        resolveDeps,
      );
    } finally {
      rmSync(outside);
    }
    expect(result.entries.map((entry) => entry.source)).toEqual(["src/auth.ts:3-3"]);
    expect(indexed).toHaveLength(1);
    expect(result.errors.map((error) => [error.index, error.source])).toEqual([
      [0, "src/missing.ts:1-2"],
      [1, "entry nope"],
      [2, "../etc/passwd:1-1"],
      [3, "link.ts:1-1"],
      [4, "src/auth.ts:9-12"],
      [5, "src/auth.ts:3-2"],
      [6, "src/empty.ts:1-1"],
      [7, "dir:1-1"],
    ]);
    expect(result.errors[0]?.message).toMatch(/file not found/);
    expect(result.errors[1]?.message).toMatch(/no stored entry/);
    expect(result.errors[2]?.message).toMatch(/outside the project/);
    expect(result.errors[3]?.message).toMatch(/outside the project/);
    expect(result.errors[4]?.message).toMatch(/has 4 lines/);
    expect(result.errors[5]?.message).toMatch(/before start_line/);
    expect(result.errors[7]?.message).toMatch(/directory/);
  });

  it("shares a source cited twice once", () => {
    const { deps: resolveDeps } = deps([{ id: "e1", contentType: "code_file", content: "x", tokenCount: 1 }]);
    const result = resolveSources([{ entry_id: "e1" }, { entry_id: "e1" }], resolveDeps);
    expect(result.entries).toHaveLength(1);
  });
});
