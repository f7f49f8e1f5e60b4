import { describe, expect, it, vi } from "vitest";
import { agentReducer, INITIAL_AGENT_STATE } from "../../src/tui/agent-state.js";
import { probeBubblewrap } from "../../src/agent/sandbox/bubblewrap.js";
import { sandboxLabel } from "../../src/agent/sandbox/command-sandbox.js";
import { statusText, type StatusInfo } from "../../src/tui/format/status-text.js";
import { reply } from "../helpers/fake-anthropic-server.js";
import { resize, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

// Chalk decides on colour when it is first imported: force it on, so that only NO_COLOR can turn it off.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "1";
});

const COLOUR = /\u001b\[(3[0-7]|9[0-7]|38;)/;
const GREEN_ADDITION = /\u001b\[32m\+ {3}return `goodbye/;
const RED_REMOVAL = /\u001b\[31m- {3}return `hello/;

const tui = createAppFixture();

async function editSession(env: NodeJS.ProcessEnv = {}, columns?: number): Promise<RenderedApp> {
  tui.server.enqueue(
    reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }, "toolu_edit"),
    reply().text("Changed the greeting, as asked, in src/greet.ts; nothing else was touched by this edit."),
  );
  const rendered = await tui.render({
    files: { "src/greet.ts": "export function greet(name: string) {\n  return `hello ${name}`;\n}\n" },
    consent: true,
    permissionMode: "accept-edits",
    ...(columns ? { columns } : {}),
    env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, ...env },
  });
  await rendered.waitFor(/index: fresh|idx fresh/);
  await rendered.submit("change the greeting");
  await rendered.waitFor("by this edit.");
  return rendered;
}

describe("colour", () => {
  it("draws diffs green and red", async () => {
    const app = await editSession();
    expect(app.rawFrame()).toMatch(GREEN_ADDITION);
    expect(app.rawFrame()).toMatch(RED_REMOVAL);
  });

  it("uses no colour at all with NO_COLOR, and the diff still reads with + and −", async () => {
    const app = await editSession({ NO_COLOR: "1" });
    expect(app.rawFrame()).not.toMatch(COLOUR);
    expect(app.frame()).toContain("+   return `goodbye ${name}`;");
    expect(app.frame()).toContain("-   return `hello ${name}`;");
  });
});

describe("narrow terminals", () => {
  it("wraps instead of overflowing, and the status line shortens", async () => {
    const app = await editSession({}, 40);
    const lines = app.frame().split("\n");
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(40);
    // The edit is indexed again after the answer (idx saving…), then fresh.
    await app.waitFor(/sonnet-5-5 · ctx \d+% · idx fresh/);
    expect(app.frame()).toContain("nothing else");
  });

  it("follows a resize: the status line gets shorter when the terminal does", async () => {
    const app = await tui.render({ consent: true });
    await app.waitFor("no model — answers from the index · index: fresh");
    resize(app, 30);
    await app.waitFor(/no model · idx fresh\s*$/m);
  });
});

describe("status line text", () => {
  const info: StatusInfo = {
    model: { name: "claude-sonnet-5-5", contextWindow: 200_000 },
    contextTokens: 45_300,
    index: { state: "indexing", progress: { phase: "indexing", indexed: 400, total: 1_000, failed: 0, elapsedMs: 100 } },
    mode: "accept-edits",
  };

  it("is complete when it fits", () => {
    expect(statusText(info, 120)).toBe("claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · index: indexing 400/1,000 · accept-edits mode");
  });

  it("shortens, then drops the mode and the tokens, keeping the index state", () => {
    expect(statusText(info, 60)).toBe("sonnet-5-5 · ctx 23% · idx 400/1k · accept-edits");
    expect(statusText(info, 40)).toBe("sonnet-5-5 · ctx 23% · idx 400/1k");
    expect(statusText(info, 25)).toBe("sonnet-5-5 · idx 400/1k");
    expect(statusText(info, 12)).toBe("idx 400/1k");
    expect(statusText({ ...info, index: { state: "refreshing", files: 3 } }, 200)).toContain("index: refreshing 3 files");
    expect(statusText({ ...info, model: undefined, index: { state: "off" } }, 200)).toBe(
      "no model — answers from the index · index: off · accept-edits mode",
    );
  });

  it("says whether commands run sandboxed, and keeps saying it before the references go", () => {
    const on = {
      ...info,
      references: 2,
      sandbox: sandboxLabel({ state: "on", kind: "bubblewrap", network: false, networkRules: false, hidden: [], kept: [] }),
    };
    expect(statusText(on, 200)).toBe(
      "claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · 2 context refs · index: indexing 400/1,000 · accept-edits mode · sandboxed",
    );
    expect(statusText(on, 75)).toBe("sonnet-5-5 · ctx 23% · 2 refs · idx 400/1k · accept-edits · sandboxed");
    expect(statusText(on, 66)).toBe("sonnet-5-5 · ctx 23% · idx 400/1k · accept-edits · sandboxed");
    const network = {
      ...info,
      sandbox: sandboxLabel({ state: "on", kind: "bubblewrap", network: true, networkRules: false, hidden: [], kept: [] }),
    };
    expect(statusText(network, 200)).toMatch(/· sandboxed, network on$/);
    const unavailable = { ...info, sandbox: sandboxLabel({ state: "unavailable", reason: "bubblewrap is not installed" }) };
    expect(statusText(unavailable, 200)).toContain("· unsandboxed (no sandbox here)");
    expect(statusText(unavailable, 70)).toBe("sonnet-5-5 · ctx 23% · idx 400/1k · accept-edits · unsandboxed");
  });

  it("keeps the cost at 120 columns in accept-edits mode, shortening what says less first", () => {
    const working = {
      ...info,
      index: { state: "fresh" as const },
      quality: { predicted: 0.91, agentId: "engineer-1" },
      costDollars: 0.42,
      sandbox: sandboxLabel({ state: "on", kind: "bubblewrap", network: false, networkRules: false, hidden: [], kept: [] }),
    };
    expect(statusText(working, 120)).toBe(
      "claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · q 0.91 · $0.42 est. · index: fresh · accept-edits mode · sandboxed",
    );
    expect(statusText(working, 111)).toBe(
      "claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · q 0.91 · $0.42 est. · index: fresh · accept-edits · sandboxed",
    );
  });

  it("names the agent the user talks to when it is not the default one, and keeps it when the line shortens", () => {
    const librarian = { ...info, agent: "librarian" };
    expect(statusText(librarian, 200)).toBe(
      "claude-sonnet-5-5 · agent: librarian · 45,300 tokens (23% of 200k) · index: indexing 400/1,000 · accept-edits mode",
    );
    expect(statusText(librarian, 40)).toBe("sonnet-5-5 · librarian · idx 400/1k");
  });

  it("shows which agent is active on the screen (--agent librarian)", async () => {
    const librarian = await tui.render({ consent: true, env: { SYLK_AGENT_TYPE: "librarian" } });
    await librarian.waitFor("agent: librarian");
    await librarian.close();
    const app = await tui.render({ consent: true });
    await app.waitFor("index: fresh");
    expect(app.frame()).not.toContain("agent:");
  });

  it("shows the agent's predicted quality after the window, with the instance once a handoff made a new one", () => {
    const quality = { ...info, quality: { predicted: 0.8712, agentId: "engineer-2" } };
    expect(statusText(quality, 200)).toBe(
      "claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · quality 0.87 (engineer-2) · index: indexing 400/1,000 · accept-edits mode",
    );
    expect(statusText(quality, 110)).toBe(
      "claude-sonnet-5-5 · 45,300 tokens (23% of 200k) · q 0.87 · index: indexing 400/1,000 · accept-edits mode",
    );
    expect(statusText(quality, 60)).toBe("sonnet-5-5 · ctx 23% · q 0.87 · idx 400/1k · accept-edits");
  });
});

describe("transcript state", () => {
  it("discards a failed attempt's text on retry and keeps the final message once", () => {
    let state = agentReducer(INITIAL_AGENT_STATE, { type: "started", prompt: "hi" });
    state = agentReducer(state, { type: "event", event: { type: "text_delta", text: "partial" } });
    state = agentReducer(state, { type: "event", event: { type: "retry", attempt: 1, delayMs: 5, reason: "connection reset" } });
    expect(state.streaming).toBe("");
    state = agentReducer(state, { type: "event", event: { type: "text_delta", text: "final" } });
    state = agentReducer(state, { type: "event", event: { type: "assistant_message", turn: 1, text: "final", toolCalls: 0 } });
    expect(state.history.map((item) => item.kind)).toEqual(["user", "note", "assistant"]);
    expect(state.streaming).toBe("");
  });
});

describe("the sandbox", () => {
  const withModel = (extra: NodeJS.ProcessEnv) => ({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, ...extra });

  it("is named on the status line", async () => {
    const app = await tui.render({ consent: true, columns: 200, env: withModel({}) });
    await app.waitFor(/index: fresh/);
    const probe = probeBubblewrap(process.env);
    expect(app.frame()).toMatch(probe.ok ? /· sandboxed\s*$/m : /· unsandboxed/);
  });

  it("where none can be made, a note says so once and the status line says unsandboxed", async () => {
    const app = await tui.render({ consent: true, columns: 200, env: withModel({ PATH: "/nonexistent" }) });
    await app.waitFor(/index: fresh/);
    const expected = process.platform === "linux" ? "commands run unsandboxed: bubblewrap is not installed" : "commands run unsandboxed";
    expect(app.frame().split(expected)).toHaveLength(2);
    expect(app.frame()).toContain("· unsandboxed (no sandbox here)");
  });
});
