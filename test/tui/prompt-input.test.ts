import { describe, expect, it } from "vitest";
import { InputHistory } from "../../src/tui/input/input-history.js";
import * as edit from "../../src/tui/input/line-editor.js";
import { KEY, sleep, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

const tui = createAppFixture({ fakeModel: false });

const sessionTitles = (rendered: RenderedApp) => rendered.services.sessions.list(10).map((session) => session.title);

describe("the prompt", () => {
  it("a trailing backslash + Enter continues on a new line; Enter then sends the whole prompt", async () => {
    const app = await tui.render({ files: { "a.ts": "export const a = 1;\n" }, consent: false });
    await app.write("first line\\");
    await app.write(KEY.enter);
    await app.write("second line");
    await app.waitFor(/❯ first line\s*│\n│\s+second line/);
    await app.write(KEY.enter);
    await app.waitFor(() => sessionTitles(app!).length === 1);
    expect(app.services.sessions.messages(app.services.sessions.list(1)[0]!.id)[0]?.content[0]).toEqual({
      type: "text",
      text: "first line\nsecond line",
    });
  });

  it("Alt+Enter and Ctrl+J insert a new line too", async () => {
    const app = await tui.render({ consent: false });
    await app.write("one");
    await app.write("\u001b\r");
    await app.write("two");
    await app.write("\n");
    await app.write("three");
    await app.waitFor(/❯ one\s*│\n│\s+two\s*│\n│\s+three/);
    expect(sessionTitles(app)).toEqual([]);
  });

  it("a pasted chunk with line breaks stays in the prompt, bracketed or not", async () => {
    const app = await tui.render({ consent: false });
    await app.write("pasted one\rpasted two\npasted three");
    await app.waitFor(/❯ pasted one\s*│\n│\s+pasted two\s*│\n│\s+pasted three/);
    await app.write(`${KEY.pasteStart}bracketed a\rbracketed b\r${KEY.pasteEnd}`);
    await app.waitFor(/pasted threebracketed a\s*│\n│\s+bracketed b/);
    expect(sessionTitles(app)).toEqual([]);
  });

  it("up and down walk the prompts sent before, and bring back the draft", async () => {
    const app = await tui.render({ consent: false });
    await app.submit("/help");
    await app.waitFor("Keys");
    await app.submit("/cost");
    await app.waitFor("Nothing sent yet");
    await app.write("draft text");
    await app.write(KEY.up);
    await app.waitFor("❯ /cost");
    await app.write(KEY.up);
    await app.waitFor("❯ /help");
    await app.write(KEY.down);
    await app.waitFor("❯ /cost");
    await app.write(KEY.down);
    await app.waitFor("❯ draft text");
  });

  it("typing / lists matching commands and Tab completes one", async () => {
    const app = await tui.render({ consent: false });
    await app.write("/se");
    await app.waitFor(/\/search <query>\s+search the code index/);
    expect(app.frame()).toMatch(/\/sessions\s+this project's sessions/);
    await app.write("\t");
    await app.waitFor("❯ /search");
  });

  it("Ctrl-C clears a prompt; Ctrl-C twice exits; Ctrl-D on an empty prompt exits", async () => {
    const app = await tui.render({ consent: false });
    await app.write("something half typed");
    await app.waitFor("something half typed");
    await app.write(KEY.ctrlC);
    await app.waitFor("Prompt cleared · Ctrl-C again to exit");
    expect(app.frame()).not.toContain("something half typed");
    await app.write(KEY.ctrlC);
    await app.exited;
    await app.close();

    const again = await tui.render({ consent: false });
    await again.write(KEY.ctrlD);
    await again.exited;
  });
});

describe("Ctrl-C on a prompt with text", () => {
  it("always clears it: only a Ctrl-C on an empty prompt is the second press, and typing calls a pending exit off", async () => {
    const app = await tui.render({ consent: false });
    await app.write("abc");
    await app.waitFor("❯ abc");
    await app.write(KEY.ctrlC);
    await app.waitFor("Prompt cleared · Ctrl-C again to exit");
    await app.write("def");
    await app.waitFor("❯ def");
    expect(app.frame()).not.toContain("Ctrl-C again to exit");
    await app.write(KEY.ctrlC);
    await app.waitFor(() => !app!.frame().includes("❯ def"));
    await sleep(100);
    expect(app.exitedWith()).toBeUndefined();
    await app.write(KEY.ctrlC);
    await app.exited;
  });

  it("keeps the session when Ctrl-C, text and Ctrl-C arrive in one read", async () => {
    const app = await tui.render({ consent: false });
    app.instance.stdin.write(`abc${KEY.ctrlC}def${KEY.ctrlC}ghi`);
    await app.waitFor("❯ ghi");
    await sleep(100);
    expect(app.exitedWith()).toBeUndefined();
  });

  it("a Ctrl-C on an empty prompt, then typing, then Ctrl-C does not exit", async () => {
    const app = await tui.render({ consent: false });
    await app.write(KEY.ctrlC);
    await app.waitFor("Press Ctrl-C again to exit");
    await app.write("x");
    await app.waitFor("❯ x");
    await app.write(KEY.backspace);
    await app.waitFor("Ask anything");
    await app.write(KEY.ctrlC);
    await app.waitFor("Press Ctrl-C again to exit");
    await sleep(100);
    expect(app.exitedWith()).toBeUndefined();
  });
});

describe("line editor", () => {
  it("inserts, deletes and moves by lines and words", () => {
    let state = edit.insert(edit.EMPTY_EDITOR, "hello world");
    state = edit.deleteWordBackward(state);
    expect(state).toEqual({ text: "hello ", cursor: 6 });
    state = edit.insert(state, "a\r\nb\tc");
    expect(state.text).toBe("hello a\nb  c");
    const up = edit.moveUp(state);
    expect(up?.cursor).toBe(4);
    expect(edit.moveUp(up!)).toBeUndefined();
    expect(edit.moveDown(edit.moveToLineStart(up!))?.cursor).toBe(8);
    expect(edit.killToLineStart(state)).toEqual({ text: "hello a\n", cursor: 8 });
    expect(edit.insert(state, "\u001b\u0007")).toBe(state);
  });

  it("treats a trailing backslash as a line continuation", () => {
    const state = edit.editorOf("line\\");
    expect(edit.endsWithContinuation(state)).toBe(true);
    expect(edit.replaceContinuationWithNewline(state)).toEqual({ text: "line\n", cursor: 5 });
  });

  it("history walks back and forth and restores the draft", () => {
    const history = new InputHistory([{ text: "from an earlier session" }]);
    expect(history.push({ text: "one" })).toBe(true);
    expect(history.push({ text: "two" })).toBe(true);
    expect(history.push({ text: "two" })).toBe(false);
    expect(history.push({ text: "  " })).toBe(false);
    expect(history.previous({ text: "draft" })?.text).toBe("two");
    expect(history.previous({ text: "two" })?.text).toBe("one");
    expect(history.previous({ text: "one" })?.text).toBe("from an earlier session");
    expect(history.previous({ text: "x" })).toBeUndefined();
    expect(history.next()?.text).toBe("one");
    expect(history.next()?.text).toBe("two");
    expect(history.next()?.text).toBe("draft");
    expect(history.next()).toBeUndefined();
  });
});
