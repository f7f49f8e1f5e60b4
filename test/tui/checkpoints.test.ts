import { existsSync, lstatSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import type { RenderedApp } from "./render-app.js";
import { withProjectDatabase } from "../helpers/project-database.js";
import { createAppFixture } from "./app-fixture.js";

/** Every agent edit is checkpointed in the store; /undo, /rewind and /diff work on them. */
const ORIGINAL = "export const greeting = 'hello';\r\nexport const count = 1;\r\n"; // CRLF: restored byte for byte
const tui = createAppFixture();
/** The test's app, for the helpers below. */
let app: RenderedApp | undefined;

const file = (path: string) => join(app!.project.root, path);
/** The screen with line wraps undone, for messages longer than a line. */
const unwrapped = () => app!.frame().replace(/\s+/g, " ");

async function editingSession(): Promise<RenderedApp> {
  tui.server.enqueue(
    reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }),
    reply().text("First edit done."),
    reply()
      .toolUse("write_file", { path: "src/new.ts", content: "export const created = true;\n" })
      .toolUse("edit_file", { path: "src/greet.ts", old_string: "count = 1", new_string: "count = 2" }),
    reply().text("Second edits done."),
  );
  const rendered = await tui.render({
    files: { "src/greet.ts": ORIGINAL },
    consent: true,
    permissionMode: "accept-edits",
    env: tui.modelEnv(),
  });
  await rendered.waitFor(/index: fresh/);
  await rendered.submit("change the greeting");
  await rendered.waitFor("First edit done.");
  await rendered.submit("add a file and bump the count");
  await rendered.waitFor("Second edits done.");
  return rendered;
}

describe("checkpoints", () => {
  it("/undo takes back the last prompt's edits byte for byte, then the one before; the model is told", async () => {
    app = await editingSession();
    expect(readFileSync(file("src/greet.ts"), "utf8")).toContain("count = 2");
    await app.submit("/undo");
    await app.waitFor(/Restored src\/new\.ts, src\/greet\.ts to before prompt 2\./);
    expect(existsSync(file("src/new.ts"))).toBe(false);
    expect(readFileSync(file("src/greet.ts"), "utf8")).toBe(ORIGINAL.replace("hello", "goodbye"));
    await app.submit("/undo");
    await app.waitFor(/Restored src\/greet\.ts to before prompt 1\./);
    expect(readFileSync(file("src/greet.ts"), "utf8")).toBe(ORIGINAL);
    await app.submit("/undo");
    await app.waitFor("Nothing to undo");

    tui.server.enqueue(reply().text("Understood."));
    await app.submit("what now?");
    await app.waitFor("Understood.");
    expect(JSON.stringify(messageRequests(tui.server).at(-1)?.body.messages)).toContain(
      "The user undid the last prompt's file edits: src/greet.ts are back as they were before.",
    );
  });

  it("refuses to overwrite a file changed since the agent wrote it, unless forced", async () => {
    app = await editingSession();
    writeFileSync(file("src/greet.ts"), "the user's own change\n");
    await app.submit("/undo");
    await app.waitFor("Nothing was restored: src/greet.ts changed since Sylk edited it.");
    expect(existsSync(file("src/new.ts"))).toBe(true);
    await app.submit("/undo force");
    await app.waitFor(/Restored src\/new\.ts, src\/greet\.ts/);
    expect(readFileSync(file("src/greet.ts"), "utf8")).toBe(ORIGINAL.replace("hello", "goodbye"));
  });

  it("/rewind lists the edits by prompt, numbered as the user counts them, and goes back to a chosen prompt; /diff shows the session's changes", async () => {
    app = await editingSession();
    await app.submit("/diff");
    await app.waitFor("src/new.ts");
    expect(app.frame()).toMatch(/src\/greet\.ts\n\s*1 - export const greeting = 'hello';/);
    expect(app.frame()).toMatch(/2 \+ export const count = 2;/);
    // The new file's `--- /dev/null` header is not drawn as a removed line of the file before it.
    expect(app.frame()).toMatch(/src\/new\.ts\n\s*1 \+ export const created = true;/);
    expect(app.frame()).not.toContain("/dev/null");
    await app.submit("/rewind");
    // The second prompt is prompt 2, however many model calls the first one took.
    await app.waitFor(/prompt 1: src\/greet\.ts\n\s+prompt 2: src\/new\.ts, src\/greet\.ts/);
    await app.submit("/rewind 3");
    await app.waitFor("This session has 2 prompts: /rewind 0 to 2.");
    await app.submit("/rewind 1");
    await app.waitFor(/Restored src\/new\.ts, src\/greet\.ts to before prompt 2\./);
    expect(existsSync(file("src/new.ts"))).toBe(false);
    await app.submit("/rewind 0");
    await app.waitFor(/Restored .*src\/greet\.ts.* to before prompt 1\./);
    expect(readFileSync(file("src/greet.ts"), "utf8")).toBe(ORIGINAL);
    expect(existsSync(file("src/new.ts"))).toBe(false);
    await app.submit("/diff");
    await app.waitFor("This session has not changed any file");
  });
});

describe("a restore never follows a link", () => {
  /** What a command could do: put a link where the file was, to a file outside the project holding the very bytes Sylk wrote. */
  function swapForLink(path: string): string {
    const outside = join(app!.project.root, "..", "outside-copy.ts");
    writeFileSync(outside, readFileSync(file(path)));
    unlinkSync(file(path));
    symlinkSync(outside, file(path));
    return outside;
  }

  it("/undo refuses a file swapped for a link out of the project, and force restores only the rest", async () => {
    app = await editingSession();
    const outside = swapForLink("src/greet.ts");
    const swapped = readFileSync(outside, "utf8");
    await app.submit("/undo");
    await app.waitFor("Nothing was restored.");
    expect(unwrapped()).toContain(
      `src/greet.ts cannot be restored: it is now a symbolic link (to ${outside}); a restore never writes through a link.`,
    );
    expect(unwrapped()).toContain('Add "force" to restore the rest and leave src/greet.ts as it is.');
    expect(existsSync(file("src/new.ts"))).toBe(true);
    await app.submit("/undo force");
    await app.waitFor(/Restored src\/new\.ts to before prompt 2\./);
    expect(existsSync(file("src/new.ts"))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe(swapped);
    expect(lstatSync(file("src/greet.ts")).isSymbolicLink()).toBe(true);
  });

  it("/rewind refuses a file under a directory swapped for a link, even when forced", async () => {
    app = await editingSession();
    const outsideDirectory = join(app.project.root, "..", "outside-src");
    renameSync(file("src"), outsideDirectory);
    symlinkSync(outsideDirectory, file("src"));
    const before = readFileSync(join(outsideDirectory, "greet.ts"), "utf8");
    await app.submit("/rewind 0 force");
    await app.waitFor("Nothing was restored.");
    expect(unwrapped()).toContain(
      `src/greet.ts cannot be restored: a directory on its path is now a symbolic link (to ${outsideDirectory})`,
    );
    expect(readFileSync(join(outsideDirectory, "greet.ts"), "utf8")).toBe(before);
    expect(existsSync(join(outsideDirectory, "new.ts"))).toBe(true);
  });
});

describe("checkpoints of a file holding a secret", () => {
  const TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;
  const CONFIG = `export const token = "${TOKEN}";\r\nexport const retries = 1;\r\n`;

  async function sessionEditing(edit: { old_string: string; new_string: string }): Promise<RenderedApp> {
    tui.server.enqueue(reply().toolUse("edit_file", { path: "src/config.ts", ...edit }), reply().text("Edited."));
    const rendered = await tui.render({
      files: { "src/config.ts": CONFIG },
      consent: true,
      permissionMode: "accept-edits",
      env: tui.modelEnv(),
    });
    await rendered.waitFor(/index: fresh/);
    await rendered.submit("change the config");
    await rendered.waitFor("Edited.");
    return rendered;
  }
  const stored = () =>
    withProjectDatabase(app!.services.paths, (db) => db.prepare("SELECT before_content FROM file_checkpoints").pluck().all() as Buffer[]);

  it("are stored masked, and /undo fills the secret back in from the file, byte for byte", async () => {
    app = await sessionEditing({ old_string: "retries = 1", new_string: "retries = 2" });
    const [before] = stored();
    expect(before?.toString("utf8")).toBe(CONFIG.replace(TOKEN, "[REDACTED:github-token]"));
    await app.submit("/diff");
    await app.waitFor(/> \/diff\n[\s\S]*retries = 2/);
    expect(app.frame().split("> /diff")[1]).toContain('token = "[REDACTED:github-token]"');
    expect(app.frame().split("> /diff")[1]).not.toContain(TOKEN);
    await app.submit("/undo");
    await app.waitFor(/Restored src\/config\.ts to before prompt 1\./);
    expect(readFileSync(file("src/config.ts"), "utf8")).toBe(CONFIG);
  });

  it("/undo refuses, showing the masked line, when the secret itself was changed since", async () => {
    const replacement = `ghp_${"Z9y8X7w6V5".repeat(4)}`;
    app = await sessionEditing({ old_string: TOKEN, new_string: replacement });
    await app.submit("/undo");
    await app.waitFor("Nothing was restored.");
    expect(unwrapped()).toContain(
      'src/config.ts cannot be restored: Sylk stored it with its secrets masked, and the values in the file now are not the ones it had: line 1: export const token = "[REDACTED:github-token]";',
    );
    expect(app.frame().split("> /undo")[1]).not.toContain("ghp_");
    expect(readFileSync(file("src/config.ts"), "utf8")).toBe(CONFIG.replace(TOKEN, replacement));
    await app.submit("/undo force");
    await app.waitFor(/Nothing was restored\.\n/);
    await app.submit("/undo");
    await app.waitFor("Nothing to undo");
    expect(readFileSync(file("src/config.ts"), "utf8")).not.toContain("[REDACTED");
  });
});
