import { describe, expect, it } from "vitest";
import { summariseCall } from "../../src/format/call-summary.js";

describe("a tool call on one line", () => {
  it("says what a search looks for and where", () => {
    expect(summariseCall("grep", { pattern: "export function isIdentifierName", path: "packages" })).toBe(
      '"export function isIdentifierName" in packages',
    );
    expect(summariseCall("grep", { pattern: "TODO", glob: "*.ts" })).toBe('"TODO" (*.ts)');
    expect(summariseCall("glob", { pattern: "src/**/*.test.ts" })).toBe('"src/**/*.test.ts"');
  });

  it("counts a task list instead of printing it", () => {
    const todos = [
      { content: "Read the parser", status: "done" },
      { content: "Fix the bug", status: "in_progress" },
      { content: "Add a test", status: "pending" },
    ];
    expect(summariseCall("todo_write", { todos })).toBe("3 tasks, 1 done");
    expect(summariseCall("todo_write", { todos: [] })).toBe("0 tasks");
  });

  it("names the symbol a role tool looks up, and the telling argument of any other tool", () => {
    expect(summariseCall("get_symbol_context", { symbol: "UserStore" })).toBe("UserStore");
    expect(summariseCall("get_symbol_context", { symbol: "parse", file: "src/a.ts" })).toBe("parse in src/a.ts");
    expect(summariseCall("read_file", { path: "src/a.ts", offset: 10 })).toBe("src/a.ts");
    expect(summariseCall("record_inquiry", { topic: "deploy", question: "Which region?" })).toBe("deploy");
    expect(summariseCall("some_new_tool", { count: 3, items: [1, 2] })).toBe("items: 2 items");
    expect(summariseCall("some_new_tool", { count: 3 })).toBe("");
  });

  it("shows control characters escaped, and cuts what is drawn", () => {
    expect(summariseCall("run_command", { command: "echo \u001b[31mred" })).toBe("echo \\e[31mred");
    expect(summariseCall("read_file", { path: "a".repeat(100) })).toHaveLength(80);
  });
});
