import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

/** 40 lines no other file has, so what /retrieve shows can be checked against it. */
function fileContent(index: number): string {
  return `${Array.from({ length: 40 }, (_, line) => `record ${index}.${line}: value-${(index * 7919 + line * 104_729) % 1_000_003} ok`).join("\n")}\n`;
}
const FILES = Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`data/file${index}.txt`, fileContent(index)]));

const tui = createAppFixture();

describe("/refs and /retrieve", () => {
  it("before any eviction, /refs says so", async () => {
    const app = await tui.render({ files: FILES, consent: true });
    await app.waitFor("index: fresh");
    await app.submit("/refs");
    await app.waitFor("No context references yet");
  });

  it("list what left a small window and show the content behind a reference as it was", async () => {
    for (let turn = 0; turn < 12; turn++)
      tui.server.enqueue(reply().toolUse("read_file", { path: `data/file${turn % 6}.txt` }, `read_${turn}`));
    tui.server.enqueue(reply().text("Read them all."));
    const app = await tui.render({
      files: FILES,
      consent: true,
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, SYLK_CONTEXT_WINDOW_TOKENS: "13000" },
    });
    await app.waitFor("index: fresh");
    await app.submit("read every data file");
    await app.waitFor("Read them all.", 60_000);

    const sessionId = app.services.sessions.list(1)[0]?.id ?? "";
    const references = app.services.contentStore.listReferences(sessionId);
    expect(references.length).toBeGreaterThan(0);
    // The status line counts the markers in the window.
    await app.waitFor(/· \d+ (?:context )?refs? ·/);
    await app.submit("/refs");
    await app.waitFor(/\d+ in the window, standing for [\d,]+ evicted tokens/);
    const live = references.filter((reference) => !reference.foldedInto);
    for (const reference of live) expect(app.frame()).toContain(reference.id);

    // The oldest live reference that holds a read of file0 shows it byte for byte. It is found by what it holds, not by
    // its summary: which turns are evicted together, and which words a summary names, move with the fixed part of the
    // request (each tool's schema is in it) and with what prefetch put beside the first prompt.
    const holdsFile0 = (reference: (typeof live)[number]) =>
      app?.services.contentStore.getByIds(reference.contentIds).some((entry) => entry.content.includes("record 0.39:")) ?? false;
    const oldest = [...live].filter(holdsFile0).sort((a, b) => a.turnRange[0] - b.turnRange[0])[0];
    expect(oldest).toBeDefined();
    await app.submit(`/retrieve ${oldest?.id}`);
    // Twelve model calls, one prompt: the user is shown prompt numbers, not the store's turns.
    await app.waitFor(`${oldest?.id}: prompt 1,`);
    await app.waitFor("record 0.39:");
    const frame = app.frame();
    for (const line of fileContent(0).trimEnd().split("\n")) expect(frame).toContain(line);
    expect(frame).toContain("── prompt 1 · tool_result");
  }, 90_000);

  it("an unknown reference gets a clear error, and no argument the usage", async () => {
    const app = await tui.render({ files: FILES, consent: true });
    await app.waitFor("index: fresh");
    await app.submit("/retrieve");
    await app.waitFor("Usage: /retrieve <ref>");
    await app.submit("/retrieve deadbeef");
    await app.waitFor('No context reference "deadbeef"');
  });
});
