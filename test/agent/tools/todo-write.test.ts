import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createTodoWriteTool, renderTaskList, type TaskList } from "../../../src/agent/tools/todo-write.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { configDefaults } from "../../../src/config/defaults.js";

function registry(mode: "default" | "plan" = "default") {
  let stored: TaskList = { items: [], decisions: [], blockers: [] };
  const tool = createTodoWriteTool({ load: () => stored, save: (list) => (stored = list) });
  const permissions = { ...configDefaults().permissions, mode };
  return { tools: new ToolRegistry([tool], new PermissionPolicy(mode, permissions)), stored: () => stored };
}

const context = { root: "/nowhere", extraDirectories: [], signal: new AbortController().signal };

describe("todo_write", () => {
  it("replaces the list and keeps decisions and blockers, each once, across calls (in plan mode too: it changes nothing of the user's)", async () => {
    const { tools, stored } = registry("plan");
    const first = await tools.run(
      { id: "1", name: "todo_write", input: { todos: [{ content: "Read the code", status: "in_progress" }], decisions: ["Keep v1 API"] } },
      context,
    );
    expect(first.isError).toBeFalsy();
    expect(first).toMatchObject({ display: "0/1 done", permission: "allowed" });
    await tools.run(
      {
        id: "2",
        name: "todo_write",
        input: {
          todos: [
            { content: "Read the code", status: "done" },
            { content: "Fix the parser", status: "pending" },
          ],
          decisions: ["Keep v1 API", "Parse lazily"],
          blockers: ["No test fixture for UTF-16"],
        },
      },
      context,
    );
    expect(stored()).toEqual({
      items: [
        { content: "Read the code", status: "done" },
        { content: "Fix the parser", status: "pending" },
      ],
      decisions: ["Keep v1 API", "Parse lazily"],
      blockers: ["No test fixture for UTF-16"],
    });
    expect(renderTaskList(stored())).toBe(
      "[x] Read the code\n[ ] Fix the parser\n\nDecisions:\n- Keep v1 API\n- Parse lazily\n\nBlockers:\n- No test fixture for UTF-16",
    );
  });

  it("answers input that does not match its schema with a correction, counted as malformed input", async () => {
    const { tools, stored } = registry();
    const result = await tools.run({ id: "1", name: "todo_write", input: { todos: [{ content: "x", status: "started" }] } }, context);
    expect(result).toMatchObject({ isError: true, failure: "malformed_input" });
    expect(result.output).toContain("Invalid input for todo_write");
    expect(stored().items).toEqual([]);
  });
});
