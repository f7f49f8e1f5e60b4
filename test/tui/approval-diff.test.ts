import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import type { RenderedApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** Approvals show the real change, numbered, with context, in a dialog that fits. */
const LONG = `${Array.from({ length: 120 }, (_, index) => `old line ${index + 1}`).join("\n")}\n`;
const FILES = {
  "src/notes.txt": "first line\nUNIQUE_BODY_LINE_TWO\nthird line\n",
  "src/long.txt": LONG,
};
const PAGE_DOWN = "\u001b[6~";

const tui = createAppFixture();

async function session(): Promise<RenderedApp> {
  const rendered = await tui.render({
    files: FILES,
    consent: true,
    env: tui.modelEnv(),
  });
  // A 24-row terminal, the smallest common one.
  Object.defineProperty(rendered.instance.stdout, "rows", { configurable: true, get: () => 24 });
  await rendered.waitFor(/index: fresh/);
  return rendered;
}

/** The approval dialog's lines, from its top border to its bottom one. */
function dialogLines(frame: string): string[] {
  const lines = frame.split("\n");
  const top = lines.findIndex((line, index) => line.startsWith("╭") && lines[index + 1]?.includes("?"));
  const bottom = lines.findIndex((line, index) => index > top && line.startsWith("╰"));
  return lines.slice(top, bottom + 1);
}

describe("approving a command", () => {
  it("shows the command once in the dialog, and says Create for a new file", async () => {
    tui.server.enqueue(
      reply().toolUse("run_command", { command: "npm run lint --silent" }),
      reply().toolUse("write_file", { path: "src/fresh.ts", content: "export {};\n" }),
      reply().text("Done."),
    );
    const app = await session();
    await app.submit("lint it");
    await app.waitFor("Run a command?");
    const dialog = dialogLines(app.frame()).join("\n");
    expect(dialog.split("npm run lint --silent").length - 1).toBe(1);
    expect(dialog).toContain("Yes, and don't ask again for this command this session");
    await app.write("y");
    await app.waitFor("Write a file?");
    expect(dialogLines(app.frame()).join("\n")).toContain("Create src/fresh.ts");
    await app.write("y");
    await app.waitFor("Done.");
  });
});

describe("approving a change", () => {
  it("an overwrite shows the lines it deletes before the user says yes", async () => {
    tui.server.enqueue(reply().toolUse("write_file", { path: "src/notes.txt", content: "first line\nreplacement\n" }));
    const app = await session();
    await app.submit("rewrite the notes");
    await app.waitFor("Write a file?");
    const frame = app.frame();
    expect(frame).toMatch(/│ 1 {3}first line/);
    expect(frame).toMatch(/│ 2 - UNIQUE_BODY_LINE_TWO/);
    expect(frame).toMatch(/│ 3 - third line/);
    expect(frame).toMatch(/│ 2 \+ replacement/);
    await app.write("n");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(readFileSync(join(app.project.root, "src/notes.txt"), "utf8")).toContain("UNIQUE_BODY_LINE_TWO");
  });

  it("a long diff fits a 24-row terminal and scrolls with PgDn", async () => {
    const replaced = LONG.replaceAll("old line", "new line");
    tui.server.enqueue(reply().toolUse("write_file", { path: "src/long.txt", content: replaced }), reply().text("Done."));
    const app = await session();
    await app.submit("rewrite the long file");
    await app.waitFor("Write a file?");
    const dialog = dialogLines(app.frame());
    expect(dialog.length).toBeLessThanOrEqual(24 - 3);
    expect(app.frame()).toMatch(/│ +1 - old line 1 /);
    expect(app.frame()).toMatch(/… \d+ more lines/);
    expect(app.frame()).toContain("PgUp/PgDn to scroll");
    await app.write(PAGE_DOWN);
    await app.waitFor(/… \d+ lines above/);
    expect(dialogLines(app.frame()).length).toBeLessThanOrEqual(24 - 3);
    await app.write("y");
    await app.waitFor("Done.");
    expect(readFileSync(join(app.project.root, "src/long.txt"), "utf8")).toBe(replaced);
  });

  it("an edit that cannot apply is answered with its error, without asking the user", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/notes.txt", old_string: "not in the file", new_string: "x" }),
      reply().text("I will read it first."),
    );
    const app = await session();
    await app.submit("edit the notes");
    await app.waitFor("I will read it first.");
    expect(app.frames().some((frame) => frame.includes("Edit a file?"))).toBe(false);
    const request = tui.server.requests.filter(
      (recorded) => recorded.path.startsWith("/v1/messages") && !recorded.path.includes("count_tokens"),
    )[1];
    expect(JSON.stringify(request?.body)).toContain("old_string was not found in src/notes.txt");
  });
});
