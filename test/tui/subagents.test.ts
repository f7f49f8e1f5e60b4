import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { createAppFixture } from "./app-fixture.js";

/** A sub-agent's work in the TUI, nested under the call that started it, and its tokens in /cost. */
const tui = createAppFixture();

describe("sub-agents in the TUI", () => {
  it("shows the librarian and its calls beneath the delegate call, lists it while it works, and counts it in /cost", async () => {
    tui.server.enqueue(
      reply().toolUse("delegate", { agent: "librarian", task: "Where is greet?" }, "toolu_delegate"),
      reply().toolUse("grep", { pattern: "greet" }, "toolu_child"),
      // The librarian's answer waits, so the status line can be seen while it works.
      reply().text("greet is in src/greet.ts:1-3.").delayMs(600),
      reply().text("The librarian found it: src/greet.ts:1-3."),
    );
    const app = await tui.render({
      files: { "src/greet.ts": "export function greet(name: string) {\n  return `hello ${name}`;\n}\n" },
      consent: true,
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
    });
    await app.waitFor("index: fresh");
    await app.submit("ask the librarian where greet is");
    // In full, or as a count where the line is too narrow for the names.
    await app.waitFor(/agents: librarian-1|· 1 agent ·/);
    await app.waitFor("The librarian found it: src/greet.ts:1-3.");
    const screen = app.frame();
    expect(screen).toMatch(/⏺ delegate\(/);
    expect(screen).toMatch(/librarian-1 \(librarian\) · 1 tool calls · [\d,]+ tokens/);
    expect(screen).toMatch(/⏺ grep\("greet"\) ⎿/);
    expect(screen).not.toMatch(/agents: librarian-1|· 1 agent ·/);

    await app.submit("/cost");
    await app.waitFor("Sub-agents (each in a session of its own):");
    expect(app.frame()).toMatch(/librarian: 1 run · input [\d,]+/);
  });

  it("asks one question at a time when two sub-agents working at once both want to write, each named", async () => {
    const respond = (body: any) => {
      const system = Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : String(body.system);
      const text = JSON.stringify(body.messages);
      if (!system.includes("[Task from") && !text.includes("[Task from")) {
        return body.messages.length === 1
          ? reply()
              .toolUse("delegate", { agent: "engineer", task: "Write a.txt" }, "toolu_a")
              .toolUse("delegate", { agent: "engineer", task: "Write b.txt" }, "toolu_b")
          : reply().text("Both files written.");
      }
      const file = text.includes("Write a.txt") ? "a.txt" : "b.txt";
      return body.messages.length === 1
        ? reply().toolUse("write_file", { path: file, content: `${file}\n` })
        : reply().text(`${file} written.`);
    };
    for (let index = 0; index < 6; index++) tui.server.enqueue((body) => respond(body) as never);
    const app = await tui.render({
      consent: true,
      env: {
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: tui.server.baseUrl,
        SYLK_MODEL_MAX_ATTEMPTS: "1",
        SYLK_AGENTS_MAX_PARALLEL: "2",
      },
    });
    await app.waitFor("index: fresh");
    await app.submit("write both files");
    await app.waitFor(/engineer-\d: Write a file\?/);
    const first = /(engineer-\d): Write a file\?/.exec(app.frame())?.[1];
    await app.write("1");
    await app.waitFor((() => {
      const shown = /(engineer-\d): Write a file\?/.exec(app!.frame())?.[1];
      return shown !== undefined && shown !== first;
    }) as () => boolean);
    await app.write("1");
    await app.waitFor("Both files written.");
    expect(existsSync(join(app.project.root, "a.txt"))).toBe(true);
    expect(existsSync(join(app.project.root, "b.txt"))).toBe(true);
  });

  it("/pipeline runs the team's stages, each shown as a line with its agent, and ends with the summary", async () => {
    // Every stage agent ends its turn at once (no structured report: recorded as such, and the pipeline goes on).
    const silent = (body: any) => {
      const system = Array.isArray(body.system) ? body.system.map((block: any) => block.text).join("\n") : String(body.system);
      const role = /## Your role: (\w+)/.exec(system)?.[1];
      return reply().text(role === "orchestrator" ? "Summary: nothing needed changing." : `${role} has nothing to add.`);
    };
    for (let index = 0; index < 30; index++) tui.server.enqueue((body) => silent(body) as never);
    const app = await tui.render({
      consent: true,
      env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl, SYLK_MODEL_MAX_ATTEMPTS: "1" },
      columns: 140,
    });
    await app.waitFor("index: fresh");
    await app.submit("/pipeline tidy the readme");
    await app.waitFor(/stage summary.*\n.*⎿ done/);
    const screen = app.frame();
    for (const stage of ["plan", "design", "implement", "review", "test"]) expect(screen).toContain(`stage ${stage}`);
    expect(screen).toMatch(/stage review\(.*inspector-\d.*\)\n\s+⎿ ended without its structured report/);
    await app.waitFor("Summary: nothing needed changing.");
    // The task's line once (the run prints it), and the stages' tokens in the cost estimate (the main window is still empty).
    expect(app.frame().split("> /pipeline tidy the readme")).toHaveLength(2);
    expect(app.frame()).toMatch(/\$[\d.]+ est\./);
  });
});
