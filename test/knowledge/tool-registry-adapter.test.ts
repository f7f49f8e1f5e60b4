import { describe, expect, it } from "vitest";
import type { ToolDescriptor } from "../../src/knowledge/context-providers.js";
import { ToolRegistryAdapter } from "../../src/knowledge/tool-registry-adapter.js";

const tools = (): ToolDescriptor[] => [
  { name: "read_file", description: "Read a file of the project" },
  { name: "search_code", description: "Full-text and vector search over the INDEX" },
  { name: "run_command", description: "Run a shell command in the sandbox" },
];

describe("ToolRegistryAdapter", () => {
  it("Scenario: List all tools — listTools returns every registered descriptor", () => {
    expect(new ToolRegistryAdapter(tools()).listTools()).toEqual(tools());
  });

  it("Scenario: Search tools by query — name or description contains the query, at most limit", () => {
    const adapter = new ToolRegistryAdapter(tools());
    expect(adapter.searchTools("file", 10).map((tool) => tool.name)).toEqual(["read_file"]);
    expect(adapter.searchTools("search", 10).map((tool) => tool.name)).toEqual(["search_code"]);
    expect(adapter.searchTools("_", 2)).toHaveLength(2);
    expect(adapter.searchTools("nothing-like-it", 10)).toEqual([]);
  });

  it("Scenario: Boundary copy on construction — later changes to the caller's array or descriptors do not reach the adapter", () => {
    const input = tools();
    const adapter = new ToolRegistryAdapter(input);
    input.push({ name: "added_later", description: "x" });
    (input[0] as ToolDescriptor).name = "renamed";
    input.splice(1, 1);
    expect(adapter.listTools().map((tool) => tool.name)).toEqual(["read_file", "search_code", "run_command"]);
    const listed = adapter.listTools();
    (listed[0] as ToolDescriptor).description = "changed by a reader";
    listed.length = 0;
    expect(adapter.listTools()).toEqual(tools());
  });

  it("Scenario: Case-insensitive search — matches name and description ignoring case", () => {
    const adapter = new ToolRegistryAdapter(tools());
    expect(adapter.searchTools("READ_FILE", 5).map((tool) => tool.name)).toEqual(["read_file"]);
    expect(adapter.searchTools("index", 5).map((tool) => tool.name)).toEqual(["search_code"]);
    expect(adapter.searchTools("Shell", 5).map((tool) => tool.name)).toEqual(["run_command"]);
  });

  it("an empty query matches every tool up to the limit; a limit of 0 or less finds none", () => {
    const adapter = new ToolRegistryAdapter(tools());
    expect(adapter.searchTools("", 2).map((tool) => tool.name)).toEqual(["read_file", "search_code"]);
    expect(adapter.searchTools("file", 0)).toEqual([]);
    expect(adapter.searchTools("file", -1)).toEqual([]);
    expect(new ToolRegistryAdapter([]).listTools()).toEqual([]);
  });
});
