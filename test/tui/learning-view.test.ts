import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

const tui = createAppFixture();

describe("/learning", () => {
  it("shows what self-tuning retrieval learned: an episode closes when the next prompt arrives", async () => {
    tui.server.enqueue(reply().text("First answer."), reply().text("Second answer."));
    const app = await tui.render({
      consent: true,
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, SYLK_LEARNING_ENABLED: "true" },
    });
    await app.waitFor("index: fresh");
    await app.submit("/learning");
    await app.waitFor("Self-tuning retrieval: 0 observations in this project.");
    await app.submit("where is the parser");
    await app.waitFor("First answer.");
    await app.submit("no, I said the parser");
    await app.waitFor("Second answer.");
    await app.submit("/learning");
    await app.waitFor("Self-tuning retrieval: 1 observation in this project.");
    // In words, beside where each setting started: no parameter tables, no context ids.
    const frame = app.frame().replace(/\s+/g, " ");
    expect(frame).toMatch(/Excerpts: up to \d \(started at 2\)/);
    expect(frame).toMatch(/File hints: up to \d \(started at 3\)/);
    expect(frame).toContain("Across your projects (1 observation; it applies after 5)");
    expect(frame).not.toContain("thresholds.confidence");
    expect(frame).not.toMatch(/ctx_\d/);
  }, 60_000);
});
