import { describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

/** Knowledge in the TUI: `# text` keeps a note, `/memory` shows what is kept. */
const tui = createAppFixture();

describe("memory in the TUI", () => {
  it("a # line is kept as a rule without reaching the model, and /memory lists it", async () => {
    const app = await tui.render({ consent: true, env: { SYLK_KNOWLEDGE_ENABLED: "true" } });
    await app.waitFor("index: fresh");
    await app.submit("# always use pnpm, never npm");
    await app.waitFor(/Kept rule [0-9a-f]{8}: always use pnpm, never npm\. It applies from your next prompt\./);
    expect(app.services.knowledge.list({ limit: 10 }).map((item) => `${item.kind}: ${item.content}`)).toEqual([
      "rule: always use pnpm, never npm",
    ]);
    await app.submit("/memory");
    // The note is shown once, not under a title made of its own words.
    await app.waitFor(/[0-9a-f]{8} {2}rule · standing {2}always use pnpm, never npm/);
    expect(app.frame()).not.toContain("pnpm npm: always");
    expect(app.frame()).not.toContain("knowledge.enabled is off");
  });

  it("a # note takes effect at once, with knowledge off (the default): the next request carries it, and an agent's saved knowledge does not", async () => {
    tui.server.enqueue(reply().text("Noted, pnpm it is."));
    const app = await tui.render({ consent: true, env: tui.modelEnv() });
    await app.waitFor("index: fresh");
    app.services.knowledge.save({
      layer: "user_knowledge",
      kind: "fact",
      key: "registry",
      content: "The agent thinks the registry is private.",
      source: "agent",
    });
    await app.submit("# always use pnpm, never npm");
    await app.waitFor("It applies from your next prompt.");
    expect(messageRequests(tui.server)).toHaveLength(0);
    await app.submit("install the dependencies");
    await app.waitFor("Noted, pnpm it is.");
    const system = JSON.stringify(messageRequests(tui.server)[0]?.body.system);
    expect(system).toContain("The User's Standing Rules");
    expect(system).toContain("- always use pnpm, never npm");
    expect(system).not.toContain("registry is private");
    await app.submit("/memory");
    await app.waitFor("your own notes apply to every prompt");
  });

  it("the status line counts the questions left for the user until /memory answer answers them", async () => {
    const app = await tui.render({ consent: true, env: { SYLK_KNOWLEDGE_ENABLED: "true" }, columns: 160 });
    await app.waitFor("index: fresh");
    const inquiry = app.services.inquiries.record({
      sessionId: null,
      topic: "deploy",
      question: "Which cluster?",
      context: "Two are named.",
    });
    await app.submit("/memory list inquiries");
    await app.waitFor("1 question for you (/memory)");
    await app.submit(`/memory answer ${inquiry.id.slice(0, 8)} The blue one.`);
    await app.waitFor(/Answered "Which cluster\?"/);
    await app.waitFor(() => !app!.frame().includes("question for you"));
  });
});
