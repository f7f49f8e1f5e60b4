import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { createGetCoverageGapsTool } from "../../../../src/agent/tools/role-tools/get-coverage-gaps.js";
import { createSearchTestHistoryTool } from "../../../../src/agent/tools/role-tools/search-test-history.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";

const tools = [
  createSearchTestHistoryTool({ history: { recorded: () => [], commandResults: () => [] }, availableTokens: () => 10_000 }),
  createGetCoverageGapsTool({ availableTokens: () => 10_000 }),
];
const specs = new ToolRegistry(tools, new PermissionPolicy("default")).specs();

describe("search_test_history and get_coverage_gaps schemas", () => {
  it("match the snapshot of what the model sees", () => {
    expect(specs).toMatchSnapshot();
  });

  it("are read tools with strict objects, no required field, every property described", () => {
    expect(tools.map((tool) => tool.kind)).toEqual(["read", "read"]);
    for (const spec of specs) {
      const schema = spec.inputSchema as {
        additionalProperties: boolean;
        required?: string[];
        properties: Record<string, { description?: string }>;
      };
      expect(schema.additionalProperties, spec.name).toBe(false);
      expect(schema.required, spec.name).toBeUndefined();
      for (const [name, property] of Object.entries(schema.properties)) expect(property.description, `${spec.name}.${name}`).toBeTruthy();
    }
  });
});
