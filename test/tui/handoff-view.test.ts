import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

const tui = createAppFixture();

describe("the task panel, /handoff and the predicted quality", () => {
  it("shows the model's task list, hands off on /handoff, and says so in the transcript and the status line", async () => {
    tui.server.enqueue(
      reply().toolUse("todo_write", {
        todos: [
          { content: "Read the parser", status: "done" },
          { content: "Fix the off-by-one", status: "in_progress" },
          { content: "Add a regression test", status: "pending" },
        ],
      }),
      reply().text("Working on it.").delayMs(1_500),
    );
    const app = await tui.render({ consent: true, env: tui.modelEnv() });
    await app.waitFor("index: fresh");
    await app.submit("fix the parser bug");
    await app.waitFor("Tasks 1/3");
    const frame = app.frame();
    expect(frame).toContain("☑ Read the parser");
    expect(frame).toContain("◐ Fix the off-by-one");
    expect(frame).toContain("☐ Add a regression test");
    await app.waitFor("Working on it.");
    // The list is the agent's while it works: once the turn is over it leaves the screen, items left or not.
    await app.waitFor(() => !app!.frame().includes("Tasks 1/3"));
    await app.waitFor(/ · q(uality)? \d\.\d\d/);

    await app.submit("/handoff");
    await app.waitFor("The next model call goes to a fresh instance with the prepared context.");
    tui.server.enqueue(reply().text("Picked up where engineer-1 left off."));
    await app.submit("carry on");
    await app.waitFor("Picked up where engineer-1 left off.");
    await app.waitFor(/Handoff 1: engineer-1 → engineer-2 \(as asked\)/);
    // The status line keeps the predicted quality (in its short form when the full line does not fit).
    await app.waitFor(/ · q(uality)? \d\.\d\d/);
    // The new instance's first request starts with the handoff state, task list included.
    const state = tui.server.requests.at(-1)?.body.messages[0].content[0].text as string;
    expect(state).toContain("[~] Fix the off-by-one");
    expect(state).toContain("## Original prompt (verbatim)\nfix the parser bug");
  }, 60_000);
});
