import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createWebFetchTool, splitIntoParts } from "../../../src/agent/tools/web-fetch.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { summariseCall } from "../../../src/format/call-summary.js";

describe("web_fetch's schema", () => {
  it("matches the snapshot of what the model sees; a call is shown by its URL", () => {
    const specs = new ToolRegistry([createWebFetchTool({ keep: async () => [] })], new PermissionPolicy("default")).specs();
    expect(specs).toMatchSnapshot();
    expect(summariseCall("web_fetch", { url: "https://example.com/docs\u001b[2J", max_tokens: 500 })).toBe(
      "https://example.com/docs\\e[2J",
    );
  });
});

describe("splitIntoParts", () => {
  it("cuts at line ends into parts of about the given tokens, a long line where it must, losing nothing", () => {
    const text = `${"line of text\n".repeat(100)}${"y".repeat(1_000)}\nend`;
    const parts = splitIntoParts(text, 50);
    expect(parts.join("")).toBe(text);
    expect(parts.every((part) => part.length <= 200)).toBe(true);
    expect(parts[0]?.endsWith("\n")).toBe(true);
  });
});
