import { describe, expect, it } from "vitest";
import { reply } from "../../helpers/fake-anthropic-server.js";
import { createAppFixture } from "../app-fixture.js";

/** /status: the session on one screen, from what /model, /cost, the status line and `sylk status` compute. */

const tui = createAppFixture();

const FILES = { "src/app.ts": "export function main() {\n  return 1;\n}\n" };

/** The /status note: from its Model line to its Session line, without the transcript's margin. */
function statusNote(frame: string): string {
  const start = frame.lastIndexOf("Model:");
  const end = frame.indexOf("\n", frame.indexOf("Session:", start));
  return frame.slice(start, end).replace(/^ /gm, "");
}

describe("/status", () => {
  it("says the model and its window, the agent, the mode, the sandbox, the index, the tokens in the window and the cost", async () => {
    tui.server.enqueue(reply().text("Done.").usage({ input_tokens: 12_000, output_tokens: 1_000 }));
    const app = await tui.render({
      files: FILES,
      consent: true,
      permissionMode: "accept-edits",
      // Wide enough that no line wraps.
      columns: 200,
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, SYLK_MODEL_NAME: "claude-sonnet-4-5" },
    });
    await app.waitFor("index: fresh");
    await app.submit("hello");
    await app.waitFor("Done.");
    await app.submit("/status");
    await app.waitFor("Session:");
    const note = statusNote(app.frame());
    expect(note).toMatch(/^Model: +claude-sonnet-4-5 \(anthropic\), a 200,000-token context window$/m);
    expect(note).toMatch(/^Agent: +engineer \(agent\.type, or --agent\)$/m);
    expect(note).toMatch(/^Permissions: +accept-edits mode: file edits without asking, commands are asked about/m);
    expect(note).toMatch(/^Sandbox: +commands run sandboxed \(bubblewrap/m);
    expect(note).toMatch(/^Index: +fresh: every file is indexed as it is now$/m);
    expect(note).toMatch(/^Window: +12,000 tokens \(6% of 200k\) in it now$/m);
    // Sonnet's list prices: $3 a million input tokens and $15 a million output tokens.
    expect(note).toMatch(/^Cost: +about \$0\.05 so far at claude-sonnet-4-5's list prices/m);
    expect(note).toMatch(/^Session: +[0-9a-f]{8}$/m);
  });

  it("without a model: no window, no cost, and the index declined says how to allow it", async () => {
    const app = await tui.render({ files: FILES, consent: false, columns: 200 });
    await app.waitFor("index: off");
    await app.submit("/status");
    await app.waitFor("Session:");
    const note = statusNote(app.frame());
    expect(note).toMatch(/^Model: +none configured, so answers come from the index/m);
    expect(note).toMatch(/^Index: +off: indexing was declined for this project; run `sylk index` to allow it/m);
    expect(note).toMatch(/^Window: +no model, so no window$/m);
    expect(note).toMatch(/^Cost: +nothing: no model is called$/m);
    expect(note).toMatch(/^Session: +[0-9a-f]{8} \(stored with its first prompt\)$/m);
  });
});
