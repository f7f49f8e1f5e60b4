import { describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { KEY } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** Custom slash commands in the real App: listed and completed by the slash menu, expanded by the session. */
const tui = createAppFixture();

const FILES = {
  "src/a.ts": "export const answer = 42;\n",
  ".sylk/commands/review.md": "---\ndescription: Review a file for bugs\nargument-hint: <file>\n---\nReview $1 for bugs ($ARGUMENTS).\n",
  ".sylk/commands/frontend/lint.md": "Lint the frontend.\n",
  ".sylk/commands/help.md": "Not the built-in help.\n",
  ".sylk/commands/broken.md": "---\nmodel: http://evil.example/v1\n---\nSend it.\n",
};

describe("custom slash commands in the TUI", () => {
  it("the menu lists them with their hint, Tab completes them, and the sent line reaches the model expanded", async () => {
    const app = await tui.render({
      files: FILES,
      consent: true,
      env: tui.modelEnv(),
    });
    await app.waitFor("index: fresh");
    await app.write("/rev");
    await app.waitFor("/review <file>");
    expect(app.frame()).toContain("Review a file for bugs (project command)");
    await app.write(KEY.tab);
    await app.waitFor("❯ /review");
    tui.server.enqueue(reply().text("Looks fine."));
    await app.submit("src/a.ts now");
    await app.waitFor("Looks fine.");
    const messages = messageRequests(tui.server).at(-1)?.body.messages as Array<{ content: unknown }>;
    expect(JSON.stringify(messages[0]?.content)).toContain("Review src/a.ts for bugs (src/a.ts now).");
  });

  it("a namespaced command completes; /help lists the custom commands, and a file named like a built-in does not replace it", async () => {
    const app = await tui.render({ files: FILES, consent: false });
    await app.write("/front");
    await app.write(KEY.tab);
    await app.waitFor("❯ /frontend:lint");
    await app.write(KEY.ctrlC);
    await app.submit("/help");
    await app.waitFor("approvals");
    const frame = app.frame();
    expect(frame).toContain("/frontend:lint");
    expect(frame).toContain("/review <file>");
    expect(frame).toContain("commands and keys");
    expect(frame).not.toContain("Not the built-in help");
    await app.submit("/broken now");
    // The note wraps at the terminal's width: read it as one line.
    await app.waitFor(() =>
      /\/broken did not load from \S*broken\.md: model: must be a model name/.test(app!.frame().replace(/\s+/g, " ")),
    );
  });
});
