import { describe, expect, it } from "vitest";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { KEY, renderApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** An interrupt is recorded as it happened, and nothing the user typed is lost or sent twice. */
const tui = createAppFixture();

const withModel = () =>
  renderApp({
    files: { "src/greet.ts": "export const greet = () => 'hello';\n" },
    consent: true,
    env: tui.modelEnv(),
  });

/** The messages of the n-th model request, each as role and the texts it holds. */
function conversation(index: number): Array<{ role: string; texts: string[] }> {
  const requests = messageRequests(tui.server);
  const messages = requests[index]?.body.messages as Array<{
    role: string;
    content: string | Array<{ type: string; text?: string; content?: unknown }>;
  }>;
  return messages.map((message) => ({
    role: message.role,
    texts: typeof message.content === "string" ? [message.content] : message.content.map((block) => block.text ?? `[${block.type}]`),
  }));
}

const slowText = (text: string) => reply().text(text).chunkText(4).eventDelayMs(150);

describe("interrupting a turn", () => {
  it("records the partial answer with a note, and the next prompt travels alone", async () => {
    tui.server.enqueue(
      slowText("Partial thoughts about the first question, which go on and on."),
      slowText("Second partial answer that also goes on."),
      reply().text("Third answer."),
    );
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("first question");
    await app.waitFor("Partial");
    await app.write(KEY.escape);
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    await app.submit("second question");
    await app.waitFor("Second");
    await app.write(KEY.escape);
    await app.waitFor(() => app!.frame().split("Interrupted. Tell Sylk what to do instead.").length === 3);
    await app.submit("third question");
    await app.waitFor("Third answer.");

    const third = conversation(2);
    expect(third.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    const prompts = third.filter((message) => message.role === "user").map((message) => message.texts[0]);
    expect(prompts).toEqual(["first question", "second question", "third question"]);
    for (const answer of third.filter((message) => message.role === "assistant")) {
      expect(answer.texts.join("")).toMatch(/^(Partial|Second)[\s\S]*\n\n\[interrupted by the user\]$/);
    }
  });

  it("gives queued prompts back to the prompt instead of dropping them", async () => {
    tui.server.enqueue(reply().hang());
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("long task");
    await app.waitFor("Working…");
    await app.submit("then this");
    await app.submit("and this");
    await app.waitFor("queued: and this");
    await app.write(KEY.escape);
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    expect(app.frame()).toMatch(/❯ then this[\s│]*and this/);
    expect(app.frame()).not.toContain("queued:");
  });

  it("'No, and tell Sylk what to do instead' stops the turn and hands the prompt back", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }),
      reply().text("This answer must never be asked for."),
    );
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("change the greeting");
    await app.waitFor("Edit a file?");
    await app.write("n");
    await app.waitFor("Interrupted. Tell Sylk what to do instead.");
    await app.waitFor("Ask anything");
    expect(messageRequests(tui.server)).toHaveLength(1);
    expect(app.frame()).not.toContain("This answer must never be asked for.");
  });
});
