import { useInput, type Key } from "ink";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { KeySplitter, splitKeys, type KeyPress } from "../../../src/tui/input/key-chunks.js";

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

describe("splitting keys read together", () => {
  it("gives each key of a read as Ink reports that key alone", async () => {
    const alone = await inkReports(controls);
    const [together] = await inkReports([`ab${controls.join("")}`]);
    const split = splitKeys(together!.input, together!.key);
    expect(split[0]).toEqual({ input: "ab", key: expect.objectContaining({ ctrl: false, return: false }) as Key });
    // Tab and the line breaks stay in the text before them, as a paste without bracketed paste brings them.
    const keys = split
      .slice(1)
      .flatMap((press) => (press.input.length > 1 ? [...press.input].map((input) => ({ input, key: press.key })) : [press]));
    const expected = alone.map((press) => ({ input: press.input, key: press.key }));
    for (const [index, press] of keys.entries()) {
      const character = controls[index]!;
      if (character === "\t" || character === "\n" || character === "\r") continue;
      expect({ character: character.charCodeAt(0), ...press }).toEqual({ character: character.charCodeAt(0), ...expected[index] });
    }
    expect(keys).toHaveLength(controls.length);
  });

  it("keeps typed text, Tab and line breaks in one piece between the keys", () => {
    const [typed] = splitKeys("hello\tworld\r\n", { ctrl: false, meta: false } as Key);
    expect(typed?.input).toBe("hello\tworld\r\n");
    expect(splitKeys("abcd\u007f\u007fX", { ctrl: false, meta: false } as Key).map((press) => press.input)).toEqual(["abcd", "", "", "X"]);
    expect(splitKeys("abc\u0015xyz\r", { ctrl: false, meta: false } as Key).map((press) => [press.input, press.key.ctrl])).toEqual([
      ["abc", false],
      ["u", true],
      ["xyz\r", false],
    ]);
  });

  it("leaves an escape sequence and a lone key as they came", () => {
    const meta = { ctrl: false, meta: true } as Key;
    expect(splitKeys("\u007f", meta)).toEqual([{ input: "\u007f", key: meta }]);
    const ctrlU = { ctrl: true, meta: false } as Key;
    expect(splitKeys("u", ctrlU)).toEqual([{ input: "u", key: ctrlU }]);
  });

  it("does not split what a bracketed paste brings, however many reads it takes", () => {
    const splitter = new KeySplitter();
    const plain = { ctrl: false, meta: false } as Key;
    expect(splitter.split("[200~", plain)).toHaveLength(1);
    expect(splitter.split("line\u0008one\u007f", plain)).toEqual([{ input: "line\u0008one\u007f", key: plain }]);
    expect(splitter.split("[201~", plain)).toHaveLength(1);
    expect(splitter.split("a\u007f", plain)).toHaveLength(2);
  });
});
