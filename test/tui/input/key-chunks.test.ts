import { useInput, type Key } from "ink";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { KeySplitter, PASTE_END, PASTE_START, splitKeys, type KeyPress } from "../../../src/tui/input/key-chunks.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function Listener({ onKey }: { onKey: (press: KeyPress) => void }) {
  useInput((input, key) => onKey({ input, key: { ...key } }));
  return null;
}

/** What Ink's own `useInput` reports for each write, on a real Ink instance. */
async function inkReports(writes: readonly string[]): Promise<KeyPress[]> {
  const seen: KeyPress[] = [];
  const instance = render(
    createElement(Listener, {
      onKey: (press) => {
        seen.push(press);
      },
    }),
  );
  cleanups.push(() => instance.unmount());
  await sleep(30);
  for (const write of writes) {
    instance.stdin.write(write);
    await sleep(5);
  }
  return seen;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const controls = [...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)), "\u007f"].filter(
  (character) => character !== "\u001b",
);

const PLAIN = { ctrl: false, meta: false } as Key;
const inputs = (presses: readonly KeyPress[]) => presses.map((press) => press.input);

describe("splitting keys read together", () => {
  it("gives each key of a read as Ink reports that key alone, Enter and Tab included", async () => {
    const alone = await inkReports(controls);
    const [together] = await inkReports([`ab${controls.join("")}`]);
    const split = splitKeys(together!.input, together!.key);
    expect(split[0]).toEqual({ input: "ab", key: expect.objectContaining({ ctrl: false, return: false }) as Key });
    const expected = alone.map((press) => ({ input: press.input, key: press.key }));
    expect(split.slice(1)).toHaveLength(controls.length);
    for (const [index, press] of split.slice(1).entries()) {
      const character = controls[index]!;
      expect({ character: character.charCodeAt(0), ...press }).toEqual({ character: character.charCodeAt(0), ...expected[index] });
    }
  });

  it("keeps typed text in one piece between the keys", () => {
    expect(splitKeys("abcd\u007f\u007fX", PLAIN).map((press) => press.input)).toEqual(["abcd", "", "", "X"]);
    expect(splitKeys("abc\u0015xyz\r", PLAIN).map((press) => [press.input, press.key.ctrl, press.key.return])).toEqual([
      ["abc", false, false],
      ["u", true, false],
      ["xyz", false, false],
      ["\r", false, true],
    ]);
    const tabbed = splitKeys("hello\tworld", PLAIN);
    expect(tabbed.map((press) => [press.input, press.key.tab])).toEqual([
      ["hello", false],
      ["", true],
      ["world", false],
    ]);
  });

  it("reads CR LF as one Enter", () => {
    const split = splitKeys("abc\r\ndef", PLAIN);
    expect(split.map((press) => [press.input, press.key.return])).toEqual([
      ["abc", false],
      ["\r", true],
      ["def", false],
    ]);
  });

  it("leaves an escape sequence and a lone key as they came", () => {
    const meta = { ctrl: false, meta: true } as Key;
    expect(splitKeys("\u007f", meta)).toEqual([{ input: "\u007f", key: meta }]);
    const ctrlU = { ctrl: true, meta: false } as Key;
    expect(splitKeys("u", ctrlU)).toEqual([{ input: "u", key: ctrlU }]);
  });
});

describe("a session's key splitter", () => {
  /** A splitter on a clock the test moves. */
  function splitterAt(start = 1_000) {
    const clock = { now: start };
    return { splitter: new KeySplitter(() => clock.now), clock };
  }

  it("splits Enter and Tab out of typed text: text then Enter sends, text then Tab completes", () => {
    const { splitter } = splitterAt();
    const sent = splitter.split("hello\r", PLAIN);
    expect(sent.map((press) => [press.input, press.key.return])).toEqual([
      ["hello", false],
      ["\r", true],
    ]);
    const completed = splitter.split("/he\t", PLAIN);
    expect(completed.map((press) => [press.input, press.key.tab])).toEqual([
      ["/he", false],
      ["", true],
    ]);
  });

  it("does not split what a bracketed paste brings, however many reads it takes", () => {
    const { splitter } = splitterAt();
    expect(splitter.split(PASTE_START, PLAIN)).toHaveLength(1);
    expect(splitter.split("line\u0008one\u007f", PLAIN)).toEqual([{ input: "line\u0008one\u007f", key: PLAIN }]);
    expect(splitter.split("first\rsecond\r", PLAIN)).toEqual([{ input: "first\rsecond\r", key: PLAIN }]);
    expect(splitter.split("\tindented", PLAIN)).toEqual([{ input: "\tindented", key: PLAIN }]);
    expect(splitter.split(PASTE_END, PLAIN)).toHaveLength(1);
    expect(splitter.split("a\u007f", PLAIN)).toHaveLength(2);
  });

  it("before any bracketed paste, keeps a multi-line block whole, and the reads that follow it at once", () => {
    const { splitter, clock } = splitterAt();
    expect(inputs(splitter.split("first line\rsecond line\r", PLAIN))).toEqual(["first line\rsecond line\r"]);
    expect(inputs(splitter.split("abc\rdef", PLAIN))).toEqual(["abc\rdef"]);
    expect(inputs(splitter.split("a\nb", PLAIN))).toEqual(["a\nb"]);
    // The rest of a paste larger than one read, a few milliseconds later: still the paste, its Enter a line break.
    clock.now += 5;
    expect(inputs(splitter.split("last line\r", PLAIN))).toEqual(["last line\r"]);
    clock.now += 90;
    expect(inputs(splitter.split("\tand more", PLAIN))).toEqual(["\tand more"]);
    // Typing after the paste: keys again.
    clock.now += 500;
    expect(inputs(splitter.split("send it\r", PLAIN))).toEqual(["send it", "\r"]);
    // A single line and its Enter, or Enters alone, are typed, not a block.
    expect(inputs(splitter.split("one\r\r", PLAIN))).toEqual(["one", "\r", "\r"]);
    expect(inputs(splitter.split("one\r\n", PLAIN))).toEqual(["one", "\r"]);
  });

  it("once the terminal has bracketed a paste, reads every Enter and Tab as a key", () => {
    const { splitter, clock } = splitterAt();
    splitter.split(PASTE_START, PLAIN);
    splitter.split("pasted", PLAIN);
    splitter.split(PASTE_END, PLAIN);
    clock.now += 1;
    expect(splitter.split("abc\rdef", PLAIN).map((press) => [press.input, press.key.return])).toEqual([
      ["abc", false],
      ["\r", true],
      ["def", false],
    ]);
    expect(inputs(splitter.split("one\rtwo\tthree", PLAIN))).toEqual(["one", "\r", "two", "", "three"]);
  });
});
