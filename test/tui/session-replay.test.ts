import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { KEY, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/**
 * A resumed session shows what the user typed and saw, read back from a real
 * stored session: not the notes Sylk wrote for the tui.server, nor the files an
 * `@` mention attached.
 */
let project: TempProject;
beforeEach(() => {
  project = createTempProject({ "src/greet.ts": "export const greeting = 'hello';\n" });
});
afterEach(() => project.cleanup());
// Made after the project's hooks, so that its apps close before the project is removed.
const tui = createAppFixture();

const open = (resume?: boolean) =>
  tui.render({
    project,
    consent: true,
    permissionMode: "accept-edits",
    env: tui.modelEnv(),
    ...(resume ? { resume: { latest: true } } : {}),
  });

/** Where the resumed session's recap starts: everything printed after the "Resumed session" line. */
const recap = (rendered: RenderedApp) => rendered.frame().split(/Resumed session \w+/)[1] ?? "";

describe("resuming a session", () => {
  it("shows a prompt as typed, without what its @ mention attached, and an interrupted answer as it was cut", async () => {
    tui.server.enqueue(
      reply().text("The greeting says hello."),
      reply().text("Once upon a time there was a very long story.").chunkText(4).eventDelayMs(150),
    );
    const app = await open();
    await app.waitFor(/index: fresh/);
    await app.submit("what does @src/greet.ts say?");
    await app.waitFor("The greeting says hello.");
    await app.submit("tell me a long story");
    await app.waitFor("Once");
    await app.write(KEY.escape);
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    await app.close();

    const resumed = await open(true);
    await resumed.waitFor("Resumed session");
    const shown = recap(resumed);
    expect(shown).toContain("what does @src/greet.ts say?");
    expect(shown).toContain("The greeting says hello.");
    expect(shown).toContain("tell me a long story");
    expect(shown).toMatch(/Once/);
    expect(shown).toContain("Interrupted");
    expect(shown).not.toContain("<attached");
    expect(shown).not.toContain("export const greeting");
    expect(shown).not.toContain("[interrupted by the user]");
  });

  it("after /undo, tells the model what was undone and no more; a resumed session shows what the user did in their words", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }),
      reply().text("Changed it."),
      reply().text("Understood."),
    );
    const app = await open();
    await app.waitFor(/index: fresh/);
    await app.submit("change the greeting");
    await app.waitFor("Changed it.");
    await app.submit("/undo");
    await app.waitFor(/Restored src\/greet\.ts/);
    await app.submit("what now?");
    await app.waitFor("Understood.");
    const sent = JSON.stringify(messageRequests(tui.server).at(-1)?.body.messages);
    expect(sent).toContain("The user undid the last prompt's file edits");
    expect(sent).not.toContain("not answered");
    expect(sent).not.toContain("the process ended");
    await app.submit("!echo from the shell");
    await app.waitFor(/echo from the shell \(exit 0\)/);
    await app.close();

    const resumed = await open(true);
    await resumed.waitFor("Resumed session");
    const shown = recap(resumed);
    expect(shown).toContain("change the greeting");
    expect(shown).toContain("Undid the last prompt's file edits: src/greet.ts");
    expect(shown).toContain("what now?");
    expect(shown).toContain("Understood.");
    expect(shown).toContain("!echo from the shell");
    expect(shown).not.toContain("[The user");
    expect(shown).not.toContain("themselves");
    expect(shown).not.toContain("not answered");
  });
});
