import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { renderApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** `!command` runs under the permission policy, and its output goes into the context. */
const tui = createAppFixture();

const withModel = (env: NodeJS.ProcessEnv = {}) =>
  renderApp({
    files: { "notes.txt": "alpha\nbeta\n" },
    consent: true,
    env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, ...env },
  });

describe("!command", () => {
  it("runs without asking (the user typed it), shows its output, and the model reads it with the next prompt", async () => {
    tui.server.enqueue(reply().text("I see two lines."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("!wc -l notes.txt");
    await app.waitFor(/⎿ wc -l notes\.txt \(exit 0\)\n\s+2 notes\.txt/);
    expect(app.frames().some((frame) => frame.includes("Run a command?"))).toBe(false);
    expect(tui.server.requests).toHaveLength(0);
    await app.submit("what did that say?");
    await app.waitFor("I see two lines.");
    const sent = JSON.stringify(tui.server.requests.find((request) => request.path.startsWith("/v1/messages"))?.body.messages);
    expect(sent).toContain("The user ran `wc -l notes.txt` themselves (wc -l notes.txt (exit 0)); what it printed:");
    expect(sent).toContain("2 notes.txt");
  });

  it("is refused where the policy denies it", async () => {
    const app = await withModel({ SYLK_PERMISSIONS_DENY: '["run_command(cat*)"]' });
    await app.waitFor(/index: fresh/);
    await app.submit("!cat notes.txt");
    await app.waitFor("denied: Permission denied: A deny rule in the configuration forbids this run_command call.");
    expect(app.frame()).not.toMatch(/^\s+alpha$/m);
  });
});
