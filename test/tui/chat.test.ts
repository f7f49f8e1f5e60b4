import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { KEY, type RenderAppOptions, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

const FILES = {
  "src/greet.ts": "export function greet(name: string) {\n  return `hello ${name}`;\n}\n",
  "src/notes.txt": "first line\nUNIQUE_BODY_LINE_TWO\nthird line\n",
};

const tui = createAppFixture();

function withModel(options: RenderAppOptions = {}): Promise<RenderedApp> {
  return tui.render({
    files: FILES,
    consent: true,
    ...options,
    env: {
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: tui.server.baseUrl,
      SYLK_MODEL_RETRY_BASE_DELAY_MS: "5",
      SYLK_MODEL_RETRY_MAX_DELAY_MS: "20",
      ...options.env,
    },
  });
}

/** The tool_result blocks the model received in request `index`. */
function toolResults(index: number): Array<{ content: string; is_error?: boolean }> {
  const messages = messageRequests(tui.server)[index]?.body.messages as Array<{ content: Array<Record<string, unknown>> | string }>;
  const last = messages?.at(-1)?.content;
  return (Array.isArray(last) ? last.filter((block) => block.type === "tool_result") : []) as never;
}

describe("chat", () => {
  it("streams the answer as it arrives, then shows it once; the status line shows model and tokens", async () => {
    tui.server.enqueue(
      reply()
        .text("Streaming answers arrive piece by piece.")
        .chunkText(6)
        .eventDelayMs(30)
        .usage({ input_tokens: 12_000, output_tokens: 40, cache_read_input_tokens: 6_000, cache_creation_input_tokens: 2_000 }),
    );
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("say something");
    await app.waitFor("Streaming answers arrive piece by piece.");
    // Some frame showed only part of the answer: it was drawn while streaming.
    expect(app.frames().some((frame) => frame.includes("Streaming an") && !frame.includes("piece by piece."))).toBe(true);
    await app.waitFor("20,000 tokens (10% of 200k)");
    expect(app.frame()).toContain("claude-sonnet-5-5");
    expect(app.frame().split("Streaming answers arrive piece by piece.").length).toBe(2);
  });

  it("drops the partial text of a failed attempt and says it is retrying", async () => {
    tui.server.enqueue(reply().text("DISCARDED partial attempt text").chunkText(4).cutAfter(6), reply().text("The retried answer."));
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("try again");
    await app.waitFor("The retried answer.");
    const frame = app.frame();
    expect(frame).toContain("retrying…");
    expect(frame).not.toContain("DISCARDED");
  });

  it("shows a tool call as it runs and its result collapsed to one line", async () => {
    tui.server.enqueue(reply().toolUse("read_file", { path: "src/notes.txt" }, "toolu_read"), reply().text("It has three lines."));
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("what is in notes?");
    await app.waitFor("It has three lines.");
    const frame = app.frame();
    expect(frame).toContain("⏺ read_file(src/notes.txt)");
    expect(frame).toMatch(/⎿ \S.*/);
    // Collapsed: the model read the file, the user sees one line about it.
    expect(frame).not.toContain("UNIQUE_BODY_LINE_TWO");
    expect(toolResults(1)[0]?.content).toContain("UNIQUE_BODY_LINE_TWO");
  });

  it("asks before an edit; no leaves the file alone, stops the turn, and the model learns why with the next prompt", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }, "toolu_edit"),
      reply().text("Understood, I left it."),
    );
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("change the greeting");
    await app.waitFor("Edit a file?");
    // The real diff of the file, numbered, with its context lines (the edit changes one word on line 2).
    expect(app.frame()).toMatch(
      /│ 1 {3}export function greet\(name: string\) \{ +│\n│ 2 - {3}return `hello \$\{name\}`; +│\n│ 2 \+ {3}return `goodbye \$\{name\}`; +│\n│ 3 {3}\} +│/,
    );
    expect(app.frame()).toMatch(/1\. Yes[\s\S]*2\. Yes, and don't ask again for edit_file calls this session[\s\S]*3\. No/);
    await app.write("3");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(app.frame()).toMatch(/⎿ denied: /);
    expect(readFileSync(join(app.project.root, "src/greet.ts"), "utf8")).toContain("hello");
    await app.submit("keep it as it is");
    await app.waitFor("Understood, I left it.");
    const sent = JSON.stringify(messageRequests(tui.server)[1]?.body.messages);
    expect(sent).toContain("The user denied this call");
    expect(sent).toContain("[interrupted by the user]");
  });

  it("a protected path is asked about even in bypass mode, with no 'always' choice; y approves that one change", async () => {
    tui.server.enqueue(
      reply().toolUse("write_file", { path: ".sylkignore", content: "dist\n" }, "toolu_protected"),
      reply().text("Ignored dist."),
    );
    const app = await withModel({ permissionMode: "bypass" });
    await app.waitFor("index: fresh");
    await app.submit("ignore dist");
    await app.waitFor("Change a protected file?");
    expect(app.frame()).toContain("what Sylk indexes");
    expect(app.frame()).not.toContain("don't ask again");
    expect(app.frame()).toMatch(/1\. Yes \(y\)[\s\S]*2\. No, and tell Sylk what to do instead \(n\)/);
    await app.write("y");
    await app.waitFor("Ignored dist.");
    expect(readFileSync(join(app.project.root, ".sylkignore"), "utf8")).toBe("dist\n");
  });

  it("allow once (arrows + Enter) makes the edit and shows it as a diff", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }, "toolu_edit"),
      reply().text("Changed it."),
    );
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("change the greeting");
    await app.waitFor("Edit a file?");
    await app.write(KEY.down);
    await app.write(KEY.up);
    await app.write(KEY.enter);
    await app.waitFor("Changed it.");
    expect(readFileSync(join(app.project.root, "src/greet.ts"), "utf8")).toContain("goodbye");
    const frame = app.frame();
    expect(frame).toContain("⎿ Edited src/greet.ts (+1 −1)");
    expect(frame).toContain("2 -   return `hello ${name}`;");
    expect(frame).toContain("2 +   return `goodbye ${name}`;");
  });

  it("allow for the session stops asking about that tool", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "hi" }, "toolu_1"),
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hi", new_string: "hey" }, "toolu_2"),
      reply().text("Two edits."),
    );
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("edit twice");
    await app.waitFor("Edit a file?");
    await app.write("2");
    await app.waitFor("Two edits.");
    expect(readFileSync(join(app.project.root, "src/greet.ts"), "utf8")).toContain("hey");
  });

  it("Ctrl-C cancels a running turn; the next prompt works", async () => {
    tui.server.enqueue(reply().hang(), reply().text("Back again."));
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("this will hang");
    await app.waitFor("Working…");
    await app.write(KEY.ctrlC);
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(app.exitedWith()).toBeUndefined();
    await app.submit("hello again");
    await app.waitFor("Back again.");
  });

  it("Esc cancels too, and Ctrl-C twice quickly exits even while a turn runs", async () => {
    tui.server.enqueue(reply().hang(), reply().hang());
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("first hang");
    await app.waitFor("Working…");
    await app.write(KEY.escape);
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    await app.submit("second hang");
    await app.waitFor("Working…");
    await app.write(KEY.ctrlC);
    await app.write(KEY.ctrlC);
    await app.exited;
  });

  it("Ctrl-C twice read in one chunk (a busy terminal delivers both presses at once) exits too", async () => {
    tui.server.enqueue(reply().text("Done."));
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("answer quickly");
    await app.waitFor("Done.");
    await app.write(KEY.ctrlC + KEY.ctrlC);
    await app.exited;
  });

  it("a prompt sent while a turn runs waits in the queue and runs next", async () => {
    tui.server.enqueue(reply().text("First answer.").eventDelayMs(150), reply().text("Second answer."));
    const app = await withModel();
    await app.waitFor("index: fresh");
    await app.submit("first");
    await app.submit("second");
    await app.waitFor("queued: second");
    await app.waitFor("Second answer.");
    expect(app.frame().indexOf("First answer.")).toBeLessThan(app.frame().indexOf("Second answer."));
  });

  it("an edit the agent makes is searchable on the next turn (the watcher refreshes the index)", async () => {
    tui.server.enqueue(
      reply().toolUse("write_file", { path: "src/fresh.ts", content: "export const zebraFinchCount = 7;\n" }, "toolu_write"),
      reply().text("Wrote it."),
    );
    const app = await withModel({ permissionMode: "accept-edits" });
    await app.waitFor("index: fresh");
    await app.session.indexing.whenWatching();
    await app.submit("add a file");
    await app.waitFor("Wrote it.");
    await app.waitFor(() => app!.services.files.has("src/fresh.ts"));
    await app.submit("/search zebraFinchCount");
    await app.waitFor(/1\. src\/fresh\.ts:1-1/);
  });
});
