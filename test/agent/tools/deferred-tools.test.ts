import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { DeferredTools, loadedToolsIn } from "../../../src/agent/tools/deferred-tools.js";
import { defineTool, type ToolContext, type ToolDefinition, type ToolKind } from "../../../src/agent/tools/tool.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";

const context: ToolContext = { root: "/project", signal: new AbortController().signal, extraDirectories: [] };

/** A tool whose description is `words` long, so that its cost in a request is known. */
function tool(name: string, kind: ToolKind = "read", description = `${name} does its one thing. ${"detail ".repeat(200)}`): ToolDefinition {
  return defineTool({
    name,
    description,
    schema: z.strictObject({ text: z.string() }),
    kind,
    targets: () => ({}),
    execute: async (input) => ({ output: `${name} ran with ${input.text}` }),
  });
}

const registryOf = (tools: ToolDefinition[], core: string[], options: { readOnly?: boolean; mode?: "bypass" | "plan" } = {}) => {
  const deferred = new DeferredTools(new Set(core));
  const registry = new ToolRegistry(tools, new PermissionPolicy(options.mode ?? "bypass"), undefined, {
    deferred,
    ...(options.readOnly ? { readOnly: true } : {}),
  });
  return { registry, deferred };
};
const sentNames = (registry: ToolRegistry) => registry.specs().map((spec) => spec.name);

describe("deferred tools in the registry", () => {
  it("sends the core tools and find_tools, which names the others; loading one sends it from then on", async () => {
    const { registry } = registryOf([tool("read_file"), tool("web_fetch", "network"), tool("get_symbol_context")], ["read_file"]);
    expect(sentNames(registry)).toEqual(["read_file", "find_tools"]);
    expect(registry.specs().at(-1)?.description).toContain("Available to load: web_fetch, get_symbol_context.");
    expect(registry.names()).toEqual(["read_file", "web_fetch", "get_symbol_context"]);
    const found = await registry.run({ id: "f", name: "find_tools", input: { query: "fetch a web page" } }, context);
    expect(found.output).toMatch(/^Loaded: web_fetch\n/);
    expect(found.output).toContain('Input schema: {"type":"object"');
    expect(sentNames(registry)).toEqual(["read_file", "web_fetch", "find_tools"]);
    await registry.run({ id: "g", name: "find_tools", input: { names: ["get_symbol_context"] } }, context);
    // Nothing is left to load: find_tools goes too.
    expect(sentNames(registry)).toEqual(["read_file", "web_fetch", "get_symbol_context"]);
  });

  it("find_tools as the model sees it", () => {
    const { registry } = registryOf([tool("read_file"), tool("web_fetch", "network"), tool("delegate", "execute")], ["read_file"]);
    expect(registry.specs().at(-1)).toMatchSnapshot();
  });

  it("sends every tool when what it would hold back costs no more than find_tools itself", () => {
    const small = (name: string) => tool(name, "read", "Small.");
    const { registry } = registryOf([tool("read_file"), small("list_files"), small("get_turn_range")], ["read_file"]);
    expect(sentNames(registry)).toEqual(["read_file", "list_files", "get_turn_range"]);
  });

  it("answers a query that matches nothing with the names it can load, and loads nothing", async () => {
    const { registry, deferred } = registryOf([tool("read_file"), tool("web_fetch", "network")], ["read_file"]);
    const found = await registry.run({ id: "f", name: "find_tools", input: { query: "compile a kernel" } }, context);
    expect(found.isError ?? false).toBe(false);
    expect(found.output).toBe('No tool to load matches "compile a kernel". Available to load: web_fetch.');
    expect(deferred.isLoaded("web_fetch")).toBe(false);
    const empty = await registry.run({ id: "e", name: "find_tools", input: {} }, context);
    expect(empty.isError).toBe(true);
  });

  it("a deferred tool is judged as before: the policy refuses it in plan mode, and a read-only registry never names a write tool", async () => {
    const { registry } = registryOf([tool("read_file"), tool("write_notes", "write")], ["read_file"], { mode: "plan" });
    const refused = await registry.run({ id: "w", name: "write_notes", input: { text: "x" } }, context);
    expect(refused).toMatchObject({ isError: true, permission: "denied" });
    const readOnly = registryOf([tool("read_file"), tool("write_notes", "write"), tool("web_fetch", "network")], ["read_file"], {
      readOnly: true,
    });
    expect(readOnly.registry.names()).not.toContain("write_notes");
    expect(readOnly.registry.specs().find((spec) => spec.name === "find_tools")?.description ?? "").not.toContain("write_notes");
  });

  it("a skill's step runs a deferred tool without loading it into the requests", async () => {
    const { registry, deferred } = registryOf([tool("read_file"), tool("web_fetch", "network")], ["read_file"]);
    const result = await registry.run({ id: "s", name: "web_fetch", input: { text: "page" } }, context, { unlisted: true });
    expect(result.output).toBe("web_fetch ran with page");
    expect(deferred.isLoaded("web_fetch")).toBe(false);
    expect(sentNames(registry)).not.toContain("web_fetch");
  });

  it("reads what a conversation loaded: find_tools answers that succeeded, and the tools it called", () => {
    const loaded = loadedToolsIn([
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "f1", name: "find_tools", input: { query: "web" } },
          { type: "tool_use", id: "f2", name: "find_tools", input: { names: ["nothing"] } },
          { type: "tool_use", id: "c1", name: "delegate", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", toolUseId: "f1", content: "Loaded: web_fetch, get_symbol_context\nThese tools…", isError: false },
          { type: "tool_result", toolUseId: "f2", content: "Loaded: nothing", isError: true },
          { type: "tool_result", toolUseId: "c1", content: "Loaded: not a find_tools answer", isError: false },
        ],
      },
    ]);
    expect(loaded).toEqual(["delegate", "web_fetch", "get_symbol_context"]);
  });
});
