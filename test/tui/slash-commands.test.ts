import { describe, expect, it } from "vitest";
import { createTempProject } from "../helpers/temp-project.js";
import type { RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

const FILES = {
  "src/billing/invoice.ts": "// Renders invoices.\nexport function renderInvoice(total: number) {\n  return `Total: ${total}`;\n}\n",
  "src/auth/jwt.ts": "export function validateToken(token: string) {\n  return token.length > 10;\n}\n",
};

const tui = createAppFixture({ fakeModel: false });

async function indexedApp(): Promise<RenderedApp> {
  const rendered = await tui.render({ files: FILES, consent: true });
  await rendered.waitFor("index: fresh");
  return rendered;
}

describe("slash commands", () => {
  it("/help lists the commands and the keys, including how to enter a new line", async () => {
    const app = await indexedApp();
    await app.submit("/help");
    await app.waitFor("Keys");
    const frame = app.frame();
    for (const command of [
      "/help",
      "/search <query>",
      "/index",
      "/sessions",
      "/resume <id>",
      "/model",
      "/refs",
      "/retrieve <ref>",
      "/cost",
      "/clear",
      "/exit",
    ]) {
      expect(frame).toContain(command);
    }
    expect(frame).toMatch(/\\ then Enter\s+new line/);
    expect(frame).toContain("Esc or Ctrl+C");
    expect(frame).toMatch(/Ctrl\+R\s+search earlier prompts/);
    expect(frame).toMatch(/Tab\s+complete a slash command; Tab again for the next match/);
    expect(frame).toContain("[Pasted text #1 +N lines]");
  });

  it("/search shows results like `sylk search`: path:lines, signals and the snippet", async () => {
    const app = await indexedApp();
    await app.submit("/search renderInvoice");
    await app.waitFor(/results? in \d+ ms/);
    const frame = app.frame();
    expect(frame).toMatch(/1\. src\/billing\/invoice\.ts:\d+-\d+ \(fulltext #1/);
    expect(frame).toContain("export function renderInvoice");
  });

  it("/search says when a signal failed and the results come from the other", async () => {
    // An embedding server that is not there: the vector signal fails, full text answers.
    const unreachable = {
      SYLK_EMBEDDING_PROVIDER: "openai-compatible",
      SYLK_EMBEDDING_BASE_URL: "http://127.0.0.1:9",
      SYLK_EMBEDDING_MODEL: "m",
      SYLK_EMBEDDING_DIMENSIONS: "26",
      SYLK_EMBEDDING_TIMEOUT_MS: "1000",
    };
    const app = await tui.render({ files: FILES, consent: true, env: unreachable });
    await app.waitFor("index: fresh");
    await app.submit("/search renderInvoice");
    await app.waitFor(/Search degraded: vector search failed: /);
    expect(app.frame()).toMatch(/1\. src\/billing\/invoice\.ts:\d+-\d+ \(fulltext #1\)/);
  });

  it("/search without a query says how to use it; an unknown command lists the real ones", async () => {
    const app = await indexedApp();
    await app.submit("/search");
    await app.waitFor("Usage: /search <query>");
    await app.submit("/frobnicate");
    await app.waitFor("Unknown command /frobnicate");
  });

  it("a prompt that starts with an absolute path goes to the model, not to the commands", async () => {
    const app = await indexedApp();
    await app.submit("/usr/lib/foo crashes when I run it");
    await app.waitFor("No model was used");
    expect(app.frame()).not.toContain("Unknown command");
    expect(app.services.sessions.list(10).map((session) => session.title)).toEqual(["/usr/lib/foo crashes when I run it"]);
  });

  it("/sessions lists this project's sessions and marks the current one; /cost shows its tokens", async () => {
    const app = await indexedApp();
    await app.submit("/cost");
    await app.waitFor("Nothing sent yet in this session.");
    await app.submit("where are invoices rendered?");
    await app.waitFor("No model was used");
    await app.submit("/sessions");
    await app.waitFor(/\* [0-9a-f]{8} .* index-only .*where are invoices rendered\?/);
    await app.submit("/cost");
    await app.waitFor(/Session [0-9a-f]{8}: 1 model calls/);
    expect(app.frame()).toMatch(/input 0 · output 0 · cache read 0 · cache write 0 tokens/);
  });

  it("/model names the model; without one configured, there is nothing to switch", async () => {
    const app = await indexedApp();
    await app.submit("/model");
    await app.waitFor("No model is configured");
    await app.submit("/model claude-other");
    await app.waitFor(() => app!.frame().split("No model is configured").length === 3);
    expect(app.frame()).not.toContain("goes on with it");
  });

  it("/clear starts a new session: the next prompt is recorded apart from the first", async () => {
    const app = await indexedApp();
    await app.submit("first question about tokens");
    await app.waitFor("No model was used");
    const first = app.services.sessions.list(10);
    expect(first).toHaveLength(1);
    await app.submit("/clear");
    await app.waitFor("New session.");
    await app.submit("second question about invoices");
    await app.waitFor(() => app!.services.sessions.list(10).length === 2);
    const titles = app.services.sessions.list(10).map((session) => session.title);
    expect(titles).toEqual(expect.arrayContaining(["first question about tokens", "second question about invoices"]));
  });

  it("/resume continues an earlier session and shows where it stopped", async () => {
    const app = await indexedApp();
    await app.submit("an earlier question about jwt");
    await app.waitFor("No model was used");
    const id = app.services.sessions.list(1)[0]!.id;
    await app.submit("/clear");
    await app.waitFor("New session.");
    await app.submit(`/resume ${id.slice(0, 8)}`);
    await app.waitFor(`Resumed session ${id.slice(0, 8)}: an earlier question about jwt (1 prompt)`);
    await app.submit("/resume nosuchid");
    await app.waitFor("No session nosuchid in this project");
  });

  it("starting with --continue shows where the latest session stopped, and goes on in it", async () => {
    const project = createTempProject(FILES);
    let app: RenderedApp | undefined;
    try {
      app = await tui.render({ project, consent: true });
      await app.submit("what renders invoices?");
      await app.waitFor("No model was used");
      const id = app.services.sessions.list(1)[0]!.id;
      await app.close();
      app = await tui.render({ project, consent: true, resume: { latest: true } });
      await app.waitFor(`Resumed session ${id.slice(0, 8)}: what renders invoices?`);
      expect(app.frame()).toContain("> what renders invoices?");
      await app.submit("and tokens?");
      await app.waitFor(() => app!.services.sessions.get(id)!.turns === 2);
      expect(app.services.sessions.list(10)).toHaveLength(1);
    } finally {
      await app?.close();
      project.cleanup();
    }
  });

  it("/exit leaves after saving: the exit callback gets the session id", async () => {
    const app = await indexedApp();
    await app.submit("a question before leaving");
    await app.waitFor("No model was used");
    await app.submit("/exit");
    const info = await app.exited;
    expect(info.sessionId).toBe(app.services.sessions.list(1)[0]!.id);
  });

  it("/index refreshes now and reports; with indexing declined it says how to allow it", async () => {
    const app = await indexedApp();
    await app.submit("/index");
    await app.waitFor(/Index is fresh \(\d+ files checked/);
    await app.close();
    const declined = await tui.render({ files: FILES, consent: false });
    await declined.waitFor("index: off");
    await declined.submit("/index");
    await declined.waitFor("Indexing is off: you declined it.");
  });
});
