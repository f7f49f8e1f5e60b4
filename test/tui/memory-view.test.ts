import { afterEach, describe, expect, it } from "vitest";
import { renderApp, type RenderedApp } from "./render-app.js";

/** Knowledge in the TUI: `# text` keeps a note, `/memory` shows what is kept. */
let app: RenderedApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe("memory in the TUI", () => {
  it("a # line is kept as a rule without reaching the model, and /memory lists it", async () => {
    app = await renderApp({ consent: true, env: { SYLK_KNOWLEDGE_ENABLED: "true" } });
    await app.waitFor("index: fresh");
    await app.submit("# always use pnpm, never npm");
    await app.waitFor(/Kept rule [0-9a-f]{8}: always use pnpm, never npm/);
    expect(app.services.knowledge.list({ limit: 10 }).map((item) => `${item.kind}: ${item.content}`)).toEqual(["rule: always use pnpm, never npm"]);
    await app.submit("/memory");
    await app.waitFor(/[0-9a-f]{8} {2}rule {2}pnpm npm: always use pnpm, never npm|[0-9a-f]{8} {2}rule {2}.*always use pnpm, never npm/);
    expect(app.frame()).not.toContain("knowledge.enabled is off");
  });

  it("the status line counts the questions left for the user until /memory answer answers them", async () => {
    app = await renderApp({ consent: true, env: { SYLK_KNOWLEDGE_ENABLED: "true" }, columns: 160 });
    await app.waitFor("index: fresh");
    const inquiry = app.services.inquiries.record({ sessionId: null, topic: "deploy", question: "Which cluster?", context: "Two are named." });
    await app.submit("/memory list inquiries");
    await app.waitFor("1 question for you (/memory)");
    await app.submit(`/memory answer ${inquiry.id.slice(0, 8)} The blue one.`);
    await app.waitFor(/Answered "Which cluster\?"/);
    await app.waitFor(() => !app!.frame().includes("question for you"));
  });
});
