import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.js";
import { agentReducer, INITIAL_AGENT_STATE, type AgentViewState } from "../../../src/tui/agent-state.js";
import { reply, startFakeAnthropicServer } from "../../helpers/fake-anthropic-server.js";
import { renderApp } from "../render-app.js";

const ANSWER = "## Plan\n\nFirst **read** the file.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nThen run the tests.";

function stream(text: string, pieces: number): AgentViewState {
  const size = Math.ceil(text.length / pieces);
  let state = agentReducer({ ...INITIAL_AGENT_STATE }, { type: "started", prompt: "plan it" });
  const apply = (event: AgentEvent) => (state = agentReducer(state, { type: "event", event }));
  apply({ type: "turn_start", turn: 1 });
  for (let at = 0; at < text.length; at += size) apply({ type: "text_delta", text: text.slice(at, at + size) });
  return state;
}

const assistantTexts = (state: AgentViewState) => state.history.flatMap((item) => (item.kind === "assistant" ? [item] : []));

describe("a streaming answer", () => {
  it("prints each block once it is finished, and keeps only the unfinished one live", () => {
    const state = stream(ANSWER, 40);
    expect(assistantTexts(state).map((item) => item.text)).toEqual([
      "## Plan",
      "First **read** the file.",
      "```ts\nconst a = 1;\n\nconst b = 2;\n```",
    ]);
    expect(assistantTexts(state).map((item) => item.continued)).toEqual([false, true, true]);
    expect(state.streaming).toBe("Then run the tests.");
    expect(state.streamedOut).toBe(true);
  });

  it("ends with the rest of the message, so the printed parts make up the whole answer", () => {
    for (const pieces of [1, 3, 17, ANSWER.length]) {
      let state = stream(ANSWER, pieces);
      state = agentReducer(state, { type: "event", event: { type: "assistant_message", turn: 1, text: ANSWER, toolCalls: 0 } });
      expect(
        assistantTexts(state)
          .map((item) => item.text)
          .join("\n\n"),
      ).toBe(ANSWER);
      expect(state.streaming).toBe("");
    }
  });

  it("a retry after printed blocks says the partial answer above is superseded", () => {
    let state = stream(ANSWER, 40);
    state = agentReducer(state, { type: "event", event: { type: "retry", attempt: 2, delayMs: 10, reason: "overloaded" } });
    expect(state.history.at(-1)).toMatchObject({ kind: "note", text: expect.stringContaining("the partial answer above is superseded") });
    expect(state).toMatchObject({ streaming: "", streamedOut: false });
  });

  it("is drawn as markdown in the session: no #, ** or fences on screen", async () => {
    const server = await startFakeAnthropicServer();
    server.enqueue(reply().text(ANSWER).chunkText(7).eventDelayMs(5));
    const app = await renderApp({ consent: true, env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl } });
    try {
      await app.waitFor(/index: fresh/);
      await app.submit("plan it");
      await app.waitFor("Then run the tests.");
      await app.waitFor(() => !/Working/.test(app.frame()));
      const frame = app.frame();
      expect(frame).toMatch(/⏺ Plan\n/);
      expect(frame).toContain("First read the file.");
      expect(frame).toMatch(/const a = 1;\n\s*\n\s*const b = 2;/);
      expect(frame).not.toMatch(/##|\*\*|```/);
    } finally {
      await app.close();
      await server.close();
    }
  });
});
