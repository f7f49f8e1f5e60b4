import { describe, expect, it } from "vitest";
import { reply } from "../../helpers/fake-anthropic-server.js";
import { renderApp } from "../render-app.js";
import { createAppFixture } from "../app-fixture.js";

/** /doctor in the TUI: `sylk doctor`'s checks on the session's own index, sandbox and model. */

const tui = createAppFixture();

const FILES = { "src/app.ts": "export function main() {\n  return 1;\n}\n" };
const withModel = () => renderApp({ files: FILES, consent: true, env: tui.modelEnv() });

describe("/doctor", () => {
  it("checks each part and sends the model one token count, no message", async () => {
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("/doctor");
    await app.waitFor(/All checks passed/);
    const frame = app.frame();
    expect(frame).toMatch(/ok {6}node {5}Node \d+/);
    expect(frame).toMatch(/ok {6}index {4}fresh/);
    expect(frame).toMatch(/ok {6}model {4}claude-.* \(anthropic\) answered in \d+ ms/);
    expect(tui.server.requests.map((request) => request.path)).toEqual(["/v1/messages/count_tokens"]);
    // Nothing was said to the model: no session was stored.
    expect(app.services.sessions.list(10)).toEqual([]);
  });

  it("a refused key is a failed check with the API's words, and indexing declined is a warning with its fix", async () => {
    tui.server.enqueueCountTokens(reply().status(401, { message: "invalid x-api-key" }));
    const app = await tui.render({
      files: FILES,
      consent: false,
      env: { ANTHROPIC_API_KEY: "sk-ant-bad", ANTHROPIC_BASE_URL: tui.server.baseUrl },
    });
    await app.waitFor("index: off");
    await app.submit("/doctor");
    await app.waitFor(/check failed/);
    const frame = app.frame();
    expect(frame).toMatch(/FAILED {2}model {4}claude-.* \(anthropic\): The Anthropic API rejected the API key/);
    // The note wraps at the terminal's width.
    expect(frame.replace(/\s+/g, " ")).toContain("rejected the API key (invalid x-api-key)");
    expect(frame).toMatch(/warning index {4}off: indexing was declined for this project/);
    expect(frame).toContain("fix: run `sylk index` to allow it");
  });
});
