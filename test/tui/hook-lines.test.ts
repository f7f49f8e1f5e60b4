import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createTempProject } from "../helpers/temp-project.js";
import { createAppFixture } from "./app-fixture.js";

/** The TUI shows a line for each hook that blocked (a quiet one shows nothing). */
const tui = createAppFixture();

/** The frame with its wrapped lines joined: a long note wraps at the terminal's width. */
const oneLine = (frame: string) => frame.replace(/\s+/g, " ");

async function withHooks(hooks: object) {
  const project = createTempProject({ "notes.txt": "alpha\n" });
  writeFileSync(join(dirname(project.root), ".sylkrc"), JSON.stringify({ hooks }));
  return tui.render({ project, consent: true, env: tui.modelEnv() });
}

describe("hook lines in the transcript", () => {
  it("a PreToolUse hook that blocks a call gets a line, with its reason; one that lets a call through gets none", async () => {
    const app = await withHooks({
      PreToolUse: [
        { matcher: "read_file", hooks: [{ type: "command", command: "echo 'notes are private' >&2; exit 2" }] },
        { matcher: "glob", hooks: [{ type: "command", command: "exit 0" }] },
      ],
    });
    tui.server.enqueue(
      reply().toolUse("glob", { pattern: "*.txt" }, "toolu_glob"),
      reply().toolUse("read_file", { path: "notes.txt" }, "toolu_read"),
      reply().text("I may not read the notes."),
    );
    await app.waitFor(/index: fresh/);
    await app.submit("read the notes");
    await app.waitFor("I may not read the notes.");
    expect(oneLine(app.frame())).toContain(
      "PreToolUse hook (read_file) `echo 'notes are private' >&2; exit 2` blocked the call: notes are private",
    );
    expect(app.frame()).not.toContain("`exit 0`");
  });

  it("a UserPromptSubmit hook that blocks the prompt says why, and that the prompt was not sent", async () => {
    const app = await withHooks({
      UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo 'use the ticket template' >&2; exit 2" }] }],
    });
    await app.waitFor(/index: fresh/);
    await app.submit("do the thing");
    await app.waitFor(/use\s+the\s+ticket\s+template/);
    expect(oneLine(app.frame())).toContain(
      "UserPromptSubmit hook `echo 'use the ticket template' >&2; exit 2` blocked the prompt, which was not sent: use the ticket template",
    );
    expect(tui.server.requests).toHaveLength(0);
  });
});
