import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../src/agent/permissions/permission-policy.js";
import { createBuiltinTools } from "../../src/agent/tools/builtin-tools.js";
import { ToolRegistry } from "../../src/agent/tools/tool-registry.js";
import { AGENT_TYPES } from "../../src/roles/agent-types.js";
import { builtinAgentListings } from "../../src/roles/agent-catalog.js";
import { builtinRoles, hookOf, promptForTools, roleOf, rolePrompt, toolsForRole } from "../../src/roles/role-registry.js";

/** W and X, and the tools that start other agents: what a read-only role must never hold. */
const WIDENING = ["edit_file", "write_file", "run_command", "delegate", "route_to_agent"];

describe("the role registry", () => {
  it("has a role, a description and a prompt for every agent type", () => {
    expect(builtinRoles().map((role) => role.type)).toEqual([...AGENT_TYPES]);
    for (const role of builtinRoles()) {
      expect(role.description.length).toBeGreaterThan(10);
      expect(rolePrompt(role.type, role.tools)).toContain(`## Your role: ${role.type}`);
    }
  });

  it("read-only roles hold no tool that writes files, runs commands or starts another agent", () => {
    const readOnly = builtinRoles().filter((role) => role.readOnly);
    expect(readOnly.map((role) => role.type)).toEqual(["librarian", "archivalist", "academic", "architect", "inspector"]);
    for (const role of readOnly) expect(role.tools.filter((tool) => WIDENING.includes(tool))).toEqual([]);
    // The orchestrator and the guide coordinate; writes happen in the agents they start.
    for (const type of ["orchestrator", "guide"] as const)
      expect(roleOf(type).tools.filter((tool) => ["edit_file", "write_file", "run_command"].includes(tool))).toEqual([]);
  });

  it("a read-only registry drops write and execute tools even when a wrong list hands them over", () => {
    const tools = createBuiltinTools({
      codeSearcher: { search: async () => [] } as never,
      sandbox: undefined as never,
      networkFor: () => false,
      integrity: undefined as never,
      processes: undefined as never,
    });
    const registry = new ToolRegistry(
      tools,
      new PermissionPolicy("default", { allow: [], deny: [], protectedPaths: [] } as never),
      undefined,
      { readOnly: true },
    );
    expect(registry.names()).toEqual(["read_file", "list_files", "glob", "grep", "search_codebase"]);
    expect(
      new ToolRegistry(tools, new PermissionPolicy("default", { allow: [], deny: [], protectedPaths: [] } as never)).names(),
    ).toContain("run_command");
  });

  it("a role gets the tools of its list the session has, in the role's order", () => {
    const available = ["todo_write", "run_command", "grep", "read_file", "not_a_role_tool"].map((name) => ({ name }));
    expect(toolsForRole(roleOf("engineer"), available).map((tool) => tool.name)).toEqual([
      "read_file",
      "grep",
      "run_command",
      "todo_write",
    ]);
    expect(toolsForRole(roleOf("librarian"), available).map((tool) => tool.name)).toEqual(["read_file", "grep"]);
  });

  it("pipeline roles prefetch within 1,000 tokens only when they work for a pipeline or another agent", () => {
    expect(hookOf(roleOf("engineer"), "pipeline")).toBe("focused_prefetch");
    expect(hookOf(roleOf("tester"), "pipeline")).toBe("focused_prefetch");
    expect(hookOf(roleOf("engineer"), "main")).toBe("full_prefetch");
    expect(hookOf(roleOf("librarian"), "pipeline")).toBe("full_prefetch");
    expect(hookOf(roleOf("orchestrator"), "main")).toBe("workflow_context");
  });
});

describe("role prompts", () => {
  const text = [
    "## Role",
    "",
    "Always here.",
    "",
    "<!-- requires: consult_librarian, get_recent_changes -->",
    "### Consulting",
    "Ask the librarian.",
    "",
    "<!-- requires: grep -->",
    "Use grep.",
  ].join("\n");

  it("keep a paragraph about tools only when every tool it needs is offered, without the marker", () => {
    expect(promptForTools(text, new Set(["grep"]))).toBe("## Role\n\nAlways here.\n\nUse grep.");
    expect(promptForTools(text, new Set(["grep", "consult_librarian"]))).toBe("## Role\n\nAlways here.\n\nUse grep.");
    expect(promptForTools(text, new Set(["grep", "consult_librarian", "get_recent_changes"]))).toBe(
      "## Role\n\nAlways here.\n\n### Consulting\nAsk the librarian.\n\nUse grep.",
    );
  });

  it("never name a tool the role is not offered", () => {
    const toolWords =
      /\b(?:consult_[a-z]+|share_context|submit_[a-z]+|report_[a-z_]+|get_[a-z_]+|search_[a-z_]+|route_to_agent|delegate|todo_write|retrieve_context|read_file|list_files|grep|edit_file|write_file|run_command)\b/g;
    for (const agent of builtinAgentListings()) {
      const prompt = rolePrompt(agent.name as never, agent.tools);
      const named = new Set(prompt.match(toolWords) ?? []);
      const absent = [...named].filter((tool) => !agent.tools.includes(tool));
      expect({ agent: agent.name, absent }).toEqual({ agent: agent.name, absent: [] });
    }
  });
});
