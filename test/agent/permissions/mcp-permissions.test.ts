import { describe, expect, it } from "vitest";
import { PermissionPolicy, type PermissionMode, type PermissionRequest } from "../../../src/agent/permissions/permission-policy.js";
import { SessionRules } from "../../../src/agent/permissions/session-rules.js";

/** An MCP server's tool is its own kind: it asks unless a rule or an answer covers it, and plan mode asks about each call. */
function call(tool: string, server: string): PermissionRequest {
  return { tool, kind: "mcp", targets: { mcpServer: server } };
}

function policy(mode: PermissionMode, rules: { allow?: string[]; deny?: string[]; ask?: string[] } = {}, session?: SessionRules) {
  return new PermissionPolicy(
    mode,
    { allow: rules.allow ?? [], deny: rules.deny ?? [], ask: rules.ask ?? [] },
    Promise.reject(new Error("no command is judged here")),
    session,
  );
}

const echo = call("mcp__github__create_issue", "github");

describe("MCP tools and the permission policy", () => {
  it("asks by default and in accept-edits, with what a run that cannot ask should do", async () => {
    for (const mode of ["default", "accept-edits"] as const) {
      const decision = await policy(mode).decide(echo);
      expect(decision).toMatchObject({ behavior: "ask", reason: 'Use mcp__github__create_issue, a tool of the MCP server "github"' });
      expect(decision.behavior === "ask" && decision.unattended).toContain('permissions.allow: "mcp__github__create_issue"');
    }
  });

  it("is allowed by a rule naming the tool, or the whole server as mcp__server or mcp__server__*, and by bypass", async () => {
    for (const rule of ["mcp__github__create_issue", "mcp__github", "mcp__github__*"]) {
      expect(await policy("default", { allow: [rule] }).decide(echo)).toEqual({ behavior: "allow" });
    }
    expect(await policy("bypass").decide(echo)).toEqual({ behavior: "allow" });
  });

  it("matches a server rule on the call's own server: mcp__git covers no tool of a server named git_x", async () => {
    const other = call("mcp__git_x__status", "git_x");
    expect((await policy("default", { allow: ["mcp__git"] }).decide(other)).behavior).toBe("ask");
    expect((await policy("default", { allow: ["mcp__git__*"] }).decide(other)).behavior).toBe("ask");
  });

  it("refuses what a deny rule names, in bypass too, and deny wins over allow", async () => {
    for (const rule of ["mcp__github__create_issue", "mcp__github"]) {
      const decision = await policy("bypass", { allow: ["mcp__github"], deny: [rule] }).decide(echo);
      expect(decision.behavior).toBe("deny");
    }
  });

  it("plan mode asks about each call, for this call only, whatever the allow rules say", async () => {
    const decision = await policy("plan", { allow: ["mcp__github"] }).decide(echo);
    expect(decision).toMatchObject({ behavior: "ask", once: true });
    expect(decision.behavior === "ask" && decision.unattended).toContain("Plan mode");
  });

  it("an ask rule asks every time; an 'always' answer covers that tool for the session, not the server's others", async () => {
    expect(await policy("bypass", { ask: ["mcp__github"] }).decide(echo)).toMatchObject({ behavior: "ask", once: true });
    const answered = policy("default");
    answered.allowForSession(echo);
    expect(await answered.decide(echo)).toEqual({ behavior: "allow" });
    expect((await answered.decide(call("mcp__github__delete_repo", "github"))).behavior).toBe("ask");
  });

  it("takes rules added in the session (/permissions) in the same forms", async () => {
    const session = new SessionRules();
    session.add("allow", "mcp__github");
    expect(await policy("default", {}, session).decide(echo)).toEqual({ behavior: "allow" });
    expect(() => session.add("allow", "mcp__bad server")).toThrow("mcp__server__tool");
  });
});
