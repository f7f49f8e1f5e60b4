import { describe, expect, it } from "vitest";
import { KEY, sleep, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/**
 * Keys that arrive in one read (fast typing, a busy event loop, SSH) are
 * applied one by one, in order, through the real input handling: each case
 * is a single `stdin.write`.
 */
const tui = createAppFixture({ fakeModel: false });

const CTRL = { a: "\u0001", e: "\u0005", k: "\u000b", u: "\u0015", w: "\u0017" } as const;

/** The prompt's line, the cursor cell included, without the box around it. */
function promptLine(rendered: RenderedApp): string | undefined {
  const line = rendered
    .frame()
    .split("\n")
    .find((row) => row.includes("❯ "));
  return line?.replace(/^[│\s]*❯ /, "").replace(/[\s│]*$/, "");
}

/** The prompts sent so far, oldest first. */
function sentPrompts(rendered: RenderedApp): string[] {
  return rendered.services.sessions
    .list(20)
    .reverse()
    .flatMap((session) => rendered.services.sessions.messages(session.id))
    .flatMap((message) => {
      const block = message.content[0];
      return message.role === "user" && typeof block === "object" && block.type === "text" ? [block.text] : [];
    });
}

async function typeInOneRead(burst: string): Promise<RenderedApp> {
  const rendered = await tui.render({ consent: false });
  rendered.instance.stdin.write(burst);
  return rendered;
}

describe("keys arriving together", () => {
  it.each([
    ["Backspace", `abcd${KEY.backspace}${KEY.backspace}X`, "abX"],
    ["Backspace three times between words", `hello${KEY.backspace.repeat(3)}world`, "heworld"],
    ["Ctrl-H, the other Backspace", "abc\bd", "abd"],
    ["Ctrl-U", `abc${CTRL.u}xyz`, "xyz"],
    ["Ctrl-W", `hello world${CTRL.w}there`, "hello there"],
    ["Ctrl-A", `world${CTRL.a}hello `, "hello world"],
    ["Ctrl-A then Ctrl-K", `old text${CTRL.a}${CTRL.k}new`, "new"],
    ["Ctrl-E after moving left", `ac${"\u001b[D"}b${CTRL.e}d`, "abcd"],
  ])("%s", async (_name, burst, expected) => {
    const app = await typeInOneRead(burst);
    await app.waitFor(() => promptLine(app!)?.trimEnd() === expected, 5_000);
  });

  it("a Ctrl-C between typed words clears what came before it, and keeps what came after", async () => {
    const app = await typeInOneRead(`abc${KEY.ctrlC}def`);
    await app.waitFor(() => promptLine(app!) === "def", 5_000);
    expect(app.exitedWith()).toBeUndefined();
  });

  it("sends what the editing keys left, with the Enter of the same read", async () => {
    const app = await typeInOneRead(`first draft${CTRL.u}the real question${KEY.backspace}?${KEY.enter}`);
    await app.waitFor(() => app!.services.sessions.list(1).length === 1, 5_000);
    const [session] = app.services.sessions.list(1);
    expect(app.services.sessions.messages(session!.id)[0]?.content[0]).toEqual({ type: "text", text: "the real questio?" });
  });
});

describe("Enter and Tab arriving with other keys", () => {
  it("text and Enter in one read send the text", async () => {
    const app = await typeInOneRead("hello\r");
    await app.waitFor(() => sentPrompts(app!).length === 1, 5_000);
    expect(sentPrompts(app)).toEqual(["hello"]);
  });

  it("text and Tab in one read complete the command", async () => {
    const app = await typeInOneRead("/he\t");
    await app.waitFor(() => promptLine(app!)?.trimEnd() === "/help", 5_000);
  });

  it("once the terminal has bracketed a paste, Enter between typed words sends the first and keeps the rest in a fresh prompt", async () => {
    const app = await tui.render({ consent: false });
    await app.write(`${KEY.pasteStart}pasted${KEY.pasteEnd}`);
    await app.waitFor(() => promptLine(app!)?.trimEnd() === "pasted", 5_000);
    await app.write(`${CTRL.u}abc\rdef`);
    await app.waitFor(() => sentPrompts(app!).length === 1 && promptLine(app!)?.trimEnd() === "def", 5_000);
    expect(sentPrompts(app)).toEqual(["abc"]);
  });

  it("before any bracketed paste, a multi-line block read at once is pasted text: not sent, even when it ends with Enter", async () => {
    const app = await typeInOneRead("first line\rsecond line\r");
    // The rest of a paste too large for one read follows at once; its Enter is a line break as well.
    app.instance.stdin.write("third line\r");
    await app.waitFor(/❯ first line\s*│\n│\s+second line\s*│\n│\s+third line/, 5_000);
    await sleep(200);
    expect(sentPrompts(app)).toEqual([]);
    await app.write(KEY.enter);
    await app.waitFor(() => sentPrompts(app!).length === 1, 5_000);
    expect(sentPrompts(app)).toEqual(["first line\nsecond line\nthird line"]);
  });

  it("Shift+Enter and Alt+Enter between typed words insert line breaks; the Enter at the end sends", async () => {
    const app = await typeInOneRead("one\u001b[13;2utwo\u001b\rthree\r");
    await app.waitFor(() => sentPrompts(app!).length === 1, 5_000);
    expect(sentPrompts(app)).toEqual(["one\ntwo\nthree"]);
  });
});
