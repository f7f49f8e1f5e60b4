import { statSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";
import { createAppFixture } from "./app-fixture.js";
import { KEY, type RenderedApp } from "./render-app.js";

const GITHUB_TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;

const projects: TempProject[] = [];
afterEach(() => {
  for (const project of projects.splice(0).reverse()) project.cleanup();
});
// Made after the projects' hook, so that its apps close before the projects are removed.
const tui = createAppFixture();

function tempProject(files: Record<string, string> = {}): TempProject {
  const project = createTempProject(files);
  projects.push(project);
  return project;
}

/** What was sent to the model: each user message's text, oldest first. */
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

async function send(rendered: RenderedApp, prompt: string): Promise<void> {
  const before = sentPrompts(rendered).length;
  await rendered.submit(prompt);
  await rendered.waitFor(() => sentPrompts(rendered).length === before + 1 && rendered.frame().includes("Ask anything"));
}

describe("prompt history", () => {
  it("survives an approval dialog (the prompt unmounts while it is open)", async () => {
    tui.server.enqueue(reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }, "toolu_edit"));
    const app = await tui.render({
      files: { "src/greet.ts": "export const greet = () => 'hello';\n" },
      consent: false,
      env: tui.modelEnv(),
    });
    await app.submit("change the greeting");
    await app.waitFor("Edit a file?");
    // "No" stops the turn and hands the prompt back.
    await app.write("3");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    await app.write(KEY.up);
    await app.waitFor("❯ change the greeting");
  });

  it("is kept across restarts, per project, with secrets masked in a file only the user can read", async () => {
    const project = tempProject();
    let app = await tui.render({ project, consent: false });
    await send(app, "first question");
    await send(app, `deploy with ${GITHUB_TOKEN}`);
    const file = app.services.paths.promptHistory;
    await app.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);

    app = await tui.render({ project, consent: false });
    await app.write(KEY.up);
    await app.waitFor("❯ deploy with [REDACTED:github-token]");
    await app.write(KEY.up);
    await app.waitFor("❯ first question");
    await app.close();

    // Another project under the same SYLK_HOME has its own history.
    app = await tui.render({ project: tempProject(), consent: false, env: { SYLK_HOME: project.sylkHome } });
    await app.write(KEY.up);
    await app.write("x");
    await app.waitFor("❯ x");
    expect(app.frame()).not.toContain("first question");
  });
});

describe("Ctrl-R history search", () => {
  it("shows the newest match, narrows as you type, goes older on Ctrl-R; Enter or → put it in the prompt unsent; Esc and Ctrl-G restore the draft", async () => {
    const app = await tui.render({ consent: false });
    await send(app, "explain the parser");
    await app.submit("/help");
    await app.waitFor("Keys");
    await send(app, "fix the parser bug");
    await app.write("my draft");
    await app.waitFor("❯ my draft");

    await app.write(KEY.ctrlR);
    await app.waitFor(/search: +Ctrl-R older/);
    expect(app.frame()).toContain("❯ fix the parser bug");
    await app.write("help");
    await app.waitFor(/❯ \/help[\s\S]*search: help/);
    await app.write(KEY.escape);
    await app.waitFor(() => app.frame().includes("❯ my draft") && !app.frame().includes("search:"));

    await app.write(KEY.ctrlR);
    await app.write("parser");
    await app.waitFor(/❯ fix the parser bug[\s\S]*search: parser/);
    await app.write(KEY.ctrlR);
    await app.waitFor(/❯ explain the parser[\s\S]*search: parser/);
    await app.write(KEY.ctrlR);
    await app.waitFor("(no older match)");
    await app.write(KEY.enter);
    await app.waitFor(() => app.frame().includes("❯ explain the parser") && !app.frame().includes("search:"));
    expect(sentPrompts(app)).toEqual(["explain the parser", "fix the parser bug"]);

    await app.write(KEY.ctrlR);
    await app.write("zzz");
    await app.waitFor("(no match)");
    await app.write(KEY.ctrlG);
    await app.waitFor(() => app.frame().includes("❯ explain the parser") && !app.frame().includes("search:"));

    await app.write(KEY.ctrlR);
    await app.write("fix");
    await app.waitFor("search: fix");
    await app.write(KEY.right);
    await app.waitFor(() => app.frame().includes("❯ fix the parser bug") && !app.frame().includes("search:"));
    await app.write(KEY.enter);
    await app.waitFor(() => sentPrompts(app).length === 3);
    expect(sentPrompts(app).at(-1)).toBe("fix the parser bug");
  });
});

describe("Tab completion", () => {
  it("cycles through the slash commands that match what was typed", async () => {
    const app = await tui.render({ consent: false });
    await app.write("/re");
    await app.waitFor("/retrieve <ref>");
    for (const expected of ["/refs", "/resume", "/retrieve", "/rewind", "/refs"]) {
      await app.write(KEY.tab);
      await app.waitFor(`❯ ${expected} `);
    }
  });
});

describe("a large paste", () => {
  const pastedLines = Array.from({ length: 300 }, (_, index) => `pasted line ${index + 1}`);

  it("arrives in chunks, is inserted once as a placeholder, and is sent (and remembered) in full", async () => {
    const app = await tui.render({ consent: false });
    await app.write(KEY.pasteStart);
    for (let chunk = 0; chunk < 3; chunk++) {
      const last = chunk === 2;
      await app.write(pastedLines.slice(chunk * 100, chunk * 100 + 100).join("\r") + (last ? "" : "\r"));
    }
    await app.write(KEY.pasteEnd);
    await app.waitFor("❯ [Pasted text #1 +300 lines]");
    // One placeholder, not a line of the paste drawn: typing redraws a short frame.
    expect(app.frame()).not.toContain("pasted line");
    expect(app.frame()).not.toContain("#2");
    expect(app.frame().split("\n").length).toBeLessThan(15);
    await app.write(" what do these say?");
    await app.waitFor("+300 lines] what do these say?");
    await app.write(KEY.enter);
    await app.waitFor(() => sentPrompts(app).length === 1);
    expect(sentPrompts(app)[0]).toBe(`${pastedLines.join("\n")} what do these say?`);

    await app.write(KEY.up);
    await app.waitFor("❯ [Pasted text #1 +300 lines] what do these say?");
    await app.write(KEY.enter);
    await app.waitFor(() => sentPrompts(app).length === 2);
    expect(sentPrompts(app)[1]).toBe(sentPrompts(app)[0]);
  });

  it("Backspace right after the placeholder deletes all of it", async () => {
    const app = await tui.render({ consent: false });
    await app.write("see ");
    await app.write(`${KEY.pasteStart}${pastedLines.slice(0, 12).join("\r")}${KEY.pasteEnd}`);
    await app.waitFor("❯ see [Pasted text #1 +12 lines]");
    await app.write(KEY.backspace);
    await app.waitFor(() => app.frame().includes("❯ see") && !app.frame().includes("Pasted text"));
    await app.write("done");
    await app.write(KEY.enter);
    await app.waitFor(() => sentPrompts(app).length === 1);
    expect(sentPrompts(app)).toEqual(["see done"]);
  });
});
