import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { CONSULTABLE_AGENTS, createConsultTool, type ConsultRequest } from "../../../src/agent/tools/consult.js";
import { createShareContextTool } from "../../../src/agent/tools/share-context.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";

const requests: ConsultRequest[] = [];
const tools = CONSULTABLE_AGENTS.map((target) =>
  createConsultTool(target, {
    consult: async (request) => {
      requests.push(request);
      return { output: `answer from ${request.target_agent_type}` };
    },
  }),
);
const registry = new ToolRegistry([...tools, createShareContextTool({ submit: () => undefined })], new PermissionPolicy("default"));
const context = { root: "/tmp", signal: new AbortController().signal, extraDirectories: [] };

describe("consult_<type> and share_context", () => {
  it("schemas match the snapshot of what the model sees", () => {
    expect(registry.specs()).toMatchSnapshot();
  });

  it("are read tools with strict objects, every property described", () => {
    expect([...tools.map((tool) => tool.name)]).toEqual([
      "consult_librarian",
      "consult_archivalist",
      "consult_academic",
      "consult_architect",
    ]);
    for (const spec of registry.specs()) {
      const schema = spec.inputSchema as {
        additionalProperties: boolean;
        required?: string[];
        properties: Record<string, { description?: string }>;
      };
      expect(schema.additionalProperties, spec.name).toBe(false);
      expect(schema.required, spec.name).toEqual(spec.name === "share_context" ? ["answer"] : ["query"]);
      for (const [name, property] of Object.entries(schema.properties)) expect(property.description, `${spec.name}.${name}`).toBeTruthy();
      expect(spec.description).not.toContain("{agent}");
    }
  });

  it("fill the defaults (2,000 tokens, normal priority) and pass the request to the host", async () => {
    requests.length = 0;
    const result = await registry.run({ id: "1", name: "consult_archivalist", input: { query: "Why JWT?" } }, context);
    expect(result.output).toBe("answer from archivalist");
    await registry.run(
      {
        id: "2",
        name: "consult_librarian",
        input: { query: "Where is auth?", max_tokens: 500, priority: "critical", context: "fixing login" },
      },
      context,
    );
    expect(requests).toEqual([
      { target_agent_type: "archivalist", query: "Why JWT?", max_tokens: 2_000, priority: "normal" },
      { target_agent_type: "librarian", query: "Where is auth?", max_tokens: 500, priority: "critical", context: "fixing login" },
    ]);
  });

  it("refuse a budget outside 200–8,000, an unknown priority and a context over 1,000 characters", async () => {
    requests.length = 0;
    const run = (input: Record<string, unknown>) => registry.run({ id: "1", name: "consult_academic", input }, context);
    expect((await run({ query: "q", max_tokens: 199 })).isError).toBe(true);
    expect((await run({ query: "q", max_tokens: 8_001 })).isError).toBe(true);
    expect((await run({ query: "q", priority: "urgent" })).isError).toBe(true);
    expect((await run({ query: "q", context: "x".repeat(1_001) })).isError).toBe(true);
    expect(requests).toEqual([]);
  });
});
