import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { estimateCost } from "../../src/llm/model-prices.js";
import { nextPermissionMode } from "../../src/tui/format/permission-modes.js";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { renderApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** In-session controls: Shift+Tab, /model, /evict, /cost in dollars. */
const SHIFT_TAB = "\u001b[Z";
const tui = createAppFixture();

const withModel = (env: NodeJS.ProcessEnv = {}) =>
  renderApp({
    files: { "src/greet.ts": "export const greet = () => 'hello';\n" },
    consent: true,
    columns: 160,
    env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, ...env },
  });

describe("in-session controls", () => {
  it("Shift+Tab cycles the permission mode: in accept-edits an edit runs without asking", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "src/greet.ts", old_string: "hello", new_string: "goodbye" }),
      reply().text("Edited."),
    );
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.write(SHIFT_TAB);
    await app.waitFor("accept-edits mode: file edits without asking");
    expect(app.frame()).toMatch(/· accept-edits mode/);
    await app.submit("change it");
    await app.waitFor("Edited.");
    expect(app.frames().some((frame) => frame.includes("Edit a file?"))).toBe(false);
    expect(readFileSync(join(app.project.root, "src/greet.ts"), "utf8")).toContain("goodbye");
    await app.write(SHIFT_TAB);
    await app.waitFor(/· plan mode/);
    await app.write(SHIFT_TAB);
    await app.waitFor(() => !/· (plan|accept-edits) mode/.test(app!.frame().split("\n").slice(-3).join("\n")));
  });

  it("cycles without bypass unless the session started in it", () => {
    expect(nextPermissionMode("plan", false)).toBe("default");
    expect(nextPermissionMode("plan", true)).toBe("bypass");
    expect(nextPermissionMode("bypass", true)).toBe("default");
  });

  it("/model switches the model, and the conversation goes on (and /sessions names the model now answering)", async () => {
    tui.server.enqueue(reply().text("First answer."), reply().text("Second answer."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("first");
    await app.waitFor("First answer.");
    await app.submit("/model claude-haiku-4-5");
    await app.waitFor("Model: claude-haiku-4-5 (anthropic)");
    await app.submit("second");
    await app.waitFor("Second answer.");
    const [first, second] = messageRequests(tui.server);
    expect(first?.body.model).not.toBe("claude-haiku-4-5");
    expect(second?.body.model).toBe("claude-haiku-4-5");
    expect(JSON.stringify(second?.body.messages)).toContain("First answer.");
    await app.submit("/sessions");
    await app.waitFor(/\* [0-9a-f]{8} .* claude-haiku-4-5 {2}2 prompts, /);
  });

  it("/evict moves the older turns out now, and a reference stands for them", async () => {
    // Turns long enough that moving them out frees more than the marker left in their place costs.
    const long = (text: string) => `${text} ${"Zebras live in herds on the savanna and graze on grass. ".repeat(20)}`;
    tui.server.enqueue(reply().text(long("Answer one about zebras.")), reply().text(long("Answer two.")), reply().text("Answer three."));
    const app = await withModel({ SYLK_CONTEXT_PRESERVE_RECENT_TURNS: "0" });
    await app.waitFor(/index: fresh/);
    await app.submit("tell me about zebras");
    await app.waitFor("Answer one about zebras.");
    await app.submit("and more");
    await app.waitFor("Answer two.");
    await app.submit("/evict");
    await app.waitFor(/Context: turns? 1(-\d)? moved out of the window as \[CTX-REF:/);
    await app.submit("what did we say?");
    await app.waitFor("Answer three.");
    const third = JSON.stringify(messageRequests(tui.server)[2]?.body.messages);
    expect(third).toContain("[CTX-REF:");
    expect(third).not.toContain("Answer one about zebras.");
  });

  it("/evict, /undo and /rewind wait for no turn: while one runs they say so and change nothing", async () => {
    tui.server.enqueue(
      reply().toolUse("write_file", { path: "src/new.ts", content: "export const made = 1;\n" }, "toolu_write"),
      reply().text("Wrote it."),
      reply().text("Still thinking about it.").delayMs(3_000),
    );
    const app = await tui.render({
      consent: true,
      columns: 160,
      permissionMode: "accept-edits",
      env: tui.modelEnv(),
    });
    await app.waitFor(/index: fresh/);
    await app.submit("make a file");
    await app.waitFor("Wrote it.");
    await app.submit("think slowly");
    for (const command of ["/undo", "/rewind 0", "/evict"]) {
      await app.submit(command);
      await app.waitFor(`A turn is running: ${command.split(" ")[0]} would change what it is working on.`);
    }
    await app.waitFor("Still thinking about it.");
    expect(readFileSync(join(app.project.root, "src/new.ts"), "utf8")).toBe("export const made = 1;\n");
    await app.submit("/undo");
    await app.waitFor(/src\/new\.ts/);
  });

  it("/cost and the status line give an estimate in dollars for a known model", async () => {
    tui.server.enqueue(
      reply()
        .text("Priced.")
        .usage({ input_tokens: 100_000, output_tokens: 10_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
    );
    const app = await withModel({ SYLK_MODEL_NAME: "claude-sonnet-4-5" });
    await app.waitFor(/index: fresh/);
    await app.submit("price it");
    await app.waitFor("Priced.");
    // 100k input at $3/M and 10k output at $15/M.
    expect(
      estimateCost("claude-sonnet-4-5", { inputTokens: 100_000, outputTokens: 10_000, cacheReadTokens: 0, cacheWriteTokens: 0 }),
    ).toBeCloseTo(0.45);
    await app.waitFor("$0.45 est.");
    await app.submit("/cost");
    await app.waitFor("about $0.45 at claude-sonnet-4-5's list prices (an estimate)");
    expect(estimateCost("some-local-model", { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBeUndefined();
  });
});
