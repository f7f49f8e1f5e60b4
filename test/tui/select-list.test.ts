import { createElement } from "react";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { SelectList, type Choice } from "../../src/tui/components/select-list.js";
import { createAppFixture } from "./app-fixture.js";
import { KEY, sleep } from "./render-app.js";

const CHOICES: ReadonlyArray<Choice<string>> = [
  { label: "Yes", value: "yes", key: "y" },
  { label: "Maybe", value: "maybe" },
  { label: "No", value: "no", key: "n" },
];

async function listAnswering(keys: string[]): Promise<ReturnType<typeof vi.fn>> {
  const onSelect = vi.fn();
  const instance = render(createElement(SelectList<string>, { choices: CHOICES, onSelect }));
  // The key listener attaches in an effect after the first frame.
  await sleep(30);
  for (const chunk of keys) {
    instance.stdin.write(chunk);
    await sleep(10);
  }
  instance.unmount();
  return onSelect;
}

describe("SelectList answers to keys", () => {
  it("a choice's letter answers at once, in either case", async () => {
    expect((await listAnswering(["y"])).mock.calls).toEqual([["yes"]]);
    expect((await listAnswering(["N"])).mock.calls).toEqual([["no"]]);
  });

  it("each choice's digit answers", async () => {
    expect((await listAnswering(["2"])).mock.calls).toEqual([["maybe"]]);
    expect((await listAnswering(["3"])).mock.calls).toEqual([["no"]]);
  });

  it("a key that arrives in the same chunk as Enter still counts, and answers once", async () => {
    expect((await listAnswering(["n\r"])).mock.calls).toEqual([["no"]]);
    expect((await listAnswering(["y\r"])).mock.calls).toEqual([["yes"]]);
    expect((await listAnswering(["2\r\r"])).mock.calls).toEqual([["maybe"]]);
  });

  it("arrows then Enter pick the highlighted choice; letters no choice has are ignored", async () => {
    expect((await listAnswering([KEY.down, KEY.enter])).mock.calls).toEqual([["maybe"]]);
    expect((await listAnswering(["x", "q", KEY.enter])).mock.calls).toEqual([["yes"]]);
  });
});

describe("the index consent question answers to y and n", () => {
  const tui = createAppFixture({ fakeModel: false });

  it("y alone starts indexing", async () => {
    const app = await tui.render({ files: { "src/a.ts": "export const a = 1;\n" } });
    await app.waitFor("Index this project?");
    expect(app.frame()).toMatch(/1\. Yes \(y\)/);
    await app.write("y");
    await app.waitFor("index: fresh");
  });

  it("n followed at once by Enter, in one chunk, declines", async () => {
    const app = await tui.render({ files: { "src/a.ts": "export const a = 1;\n" } });
    await app.waitFor("Index this project?");
    await app.write("n\r");
    await app.waitFor("index: off");
  });
});
