import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { SLASH_COMMANDS } from "../../src/tui/commands/command-list.js";
import { KEY, type RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** /help and the slash menu fit an 80-column terminal: descriptions wrap in their own column, the menu is a few rows. */
const tui = createAppFixture({ fakeModel: false });

const widest = (text: string) => Math.max(...text.split("\n").map((line) => stringWidth(line)));

/** The live part of the screen: from the prompt's box to the end. */
function liveRows(rendered: RenderedApp): string[] {
  const rows = rendered.frame().split("\n");
  const top = rows.findLastIndex((row) => row.startsWith("╭"));
  return rows.slice(top);
}

describe("/help at 80 columns", () => {
  it("fits the width, and a long description goes on under itself, not under the command", async () => {
    const app = await tui.render({ consent: false, columns: 80 });
    await app.submit("/help");
    await app.waitFor("approvals");
    const frame = app.frame();
    expect(widest(frame)).toBeLessThanOrEqual(80);
    const rows = frame.split("\n");
    const handoff = rows.findIndex((row) => row.includes("/handoff"));
    const column = rows[handoff]!.indexOf("hand the work");
    expect(column).toBeGreaterThan(10);
    // The description's next line starts where it started, and the next command follows it.
    const continuation = rows[handoff + 1]!;
    expect(continuation.slice(0, column).trim()).toBe("");
    expect(continuation.slice(column)).toMatch(/^\S/);
  });
});

describe("the slash menu at 80x24", () => {
  it("shows a few commands, one line each, and says how many more there are", async () => {
    const app = await tui.render({ consent: false, columns: 80 });
    await app.write("/");
    await app.waitFor("/clear");
    const live = liveRows(app);
    // The prompt's box (three rows), the menu, its count line and the status line fit well inside 24 rows.
    expect(live.length).toBeLessThanOrEqual(13);
    expect(widest(live.join("\n"))).toBeLessThanOrEqual(80);
    const shown = live.filter((row) => /^\s+\/[a-z]+/.test(row));
    expect(shown.length).toBeLessThan(SLASH_COMMANDS.length);
    expect(shown.length).toBeGreaterThanOrEqual(4);
    expect(app.frame()).toMatch(new RegExp(`${SLASH_COMMANDS.length - shown.length} more`));
  });

  it("scrolls with Tab, keeping the chosen command in view", async () => {
    const app = await tui.render({ consent: false, columns: 80 });
    await app.write("/");
    await app.waitFor("/clear");
    const sorted = [...SLASH_COMMANDS].sort((a, b) => a.name.localeCompare(b.name));
    const last = sorted.at(-1)!;
    expect(liveRows(app).join("\n")).not.toContain(last.usage);
    for (let press = 0; press < sorted.length; press++) await app.write(KEY.tab);
    await app.waitFor(`❯ /${last.name}`);
    const live = liveRows(app).join("\n");
    expect(live).toContain(last.usage);
    expect(live).not.toMatch(/\/clear\s+clear the screen/);
    expect(live).toMatch(/\d+ more/);
  });
});
