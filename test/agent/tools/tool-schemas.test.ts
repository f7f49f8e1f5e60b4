import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createBuiltinTools } from "../../../src/agent/tools/builtin-tools.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { unsandboxedCommands } from "../../helpers/unsandboxed-commands.js";

const specs = new ToolRegistry(
  createBuiltinTools({ codeSearcher: { search: async () => ({ hits: [], degraded: [] }) }, ...unsandboxedCommands }),
  new PermissionPolicy("default"),
).specs();

describe("built-in tool schemas", () => {
  it("match the snapshot of what the model sees", () => {
    expect(specs).toMatchSnapshot();
  });

  it("come in a fixed order", () => {
    expect(specs.map((spec) => spec.name)).toEqual([
      "read_file",
      "list_files",
      "glob",
      "grep",
      "search_codebase",
      "edit_file",
      "write_file",
      "run_command",
    ]);
  });

  it("are strict objects listing their required fields, every property described", () => {
    const required: Record<string, string[] | undefined> = {
      read_file: ["path"],
      list_files: undefined,
      glob: ["pattern"],
      grep: ["pattern"],
      search_codebase: ["query"],
      edit_file: ["path", "old_string", "new_string"],
      write_file: ["path", "content"],
      run_command: ["command"],
    };
    for (const spec of specs) {
      const schema = spec.inputSchema as {
        type: string;
        additionalProperties: boolean;
        required?: string[];
        properties: Record<string, { description?: string }>;
      };
      expect(schema.type, spec.name).toBe("object");
      expect(schema.additionalProperties, spec.name).toBe(false);
      expect(schema.required, spec.name).toEqual(required[spec.name]);
      for (const [name, property] of Object.entries(schema.properties)) expect(property.description, `${spec.name}.${name}`).toBeTruthy();
      expect(spec.description.length, spec.name).toBeGreaterThan(100);
    }
  });
});
