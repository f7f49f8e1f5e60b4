import { describe, expect, it } from "vitest";
import { reply } from "../helpers/fake-anthropic-server.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";
import { renderApp } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** A command's output is visible while it runs and afterwards, and a key shows all of it. */
const tui = createAppFixture();

const withModel = () =>
  renderApp({
    files: { "README.md": "# demo\n" },
    consent: true,
    permissionMode: "bypass",
    env: tui.modelEnv(),
  });

describe("a running command", () => {
  it("shows its latest output and the time it has run, then the end of its output with its exit code", async () => {
    const command = "for step in 1 2 3; do echo compiling step $step; sleep 0.4; done; echo 'FAIL tests/app.test.ts' >&2; exit 3";
    tui.server.enqueue(reply().toolUse("run_command", { command, description: "Run the tests" }), reply().text("The tests fail."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("run the tests");
    await app.waitFor("compiling step 1");
    expect(app.frame()).toMatch(/⎿ running… \ds/);
    await app.waitFor("The tests fail.");
    const frame = app.frame();
    expect(frame).toContain("⎿ ✗ Run the tests (exit 3)");
    expect(frame).toMatch(/compiling step 3\n\s+FAIL tests\/app\.test\.ts/);
  });

  it("keeps the last lines on screen, and Ctrl+O shows everything it printed", async () => {
    tui.server.enqueue(reply().toolUse("run_command", { command: "seq 1 40 | sed 's/^/output line /'" }), reply().text("Counted."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("count");
    await app.waitFor("Counted.");
    expect(app.frame()).toContain("… 35 more lines above (Ctrl+O shows everything)");
    expect(app.frame()).toContain("output line 40");
    expect(app.frame()).not.toMatch(/output line 1\n/);
    await app.write("\u000f"); // Ctrl+O
    await app.waitFor(/output line 1\n/);
    expect(app.frame()).toMatch(/output line 1\n(\s+output line \d+\n){38}\s+output line 40/);
    // Again: compact. The screen is cleared and the history printed anew (the test terminal keeps what was printed before).
    const compactPrints = () => app!.frame().split("… 35 more lines above").length - 1;
    expect(compactPrints()).toBe(1);
    await app.write("\u000f");
    await app.waitFor(() => compactPrints() === 2);
  });
});

describe("a tool call's line", () => {
  it("says what a search looks for and where, and how many tasks a list holds, not the call's JSON", async () => {
    tui.server.enqueue(
      reply().toolUse("grep", { pattern: "export function isIdentifierName", path: "packages" }),
      reply().toolUse("todo_write", {
        todos: [
          { content: "Read the README", status: "done" },
          { content: "Write the summary", status: "in_progress" },
        ],
      }),
      reply().text("Searched."),
    );
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("look around");
    await app.waitFor("Searched.");
    expect(app.frame()).toContain('grep("export function isIdentifierName" in packages)');
    expect(app.frame()).toContain("todo_write(2 tasks, 1 done)");
    expect(app.frame()).not.toContain('{"todos"');
  });
});

describe("an edit in the transcript view (Ctrl+O)", () => {
  it("shows its summary once and its numbered diff, not the raw diff the model reads as well", async () => {
    tui.server.enqueue(
      reply().toolUse("edit_file", { path: "README.md", old_string: "# demo", new_string: "# the demo" }),
      reply().text("Edited."),
    );
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("retitle the readme");
    await app.waitFor("Edited.");
    const printsBefore = app.frame().split("✻ Sylk").length - 1;
    await app.write("\u000f"); // Ctrl+O
    await app.waitFor(() => app!.frame().split("✻ Sylk").length - 1 > printsBefore);
    await app.waitFor("Edited.", 5_000);
    const expanded = app.frame().split("✻ Sylk").at(-1)!;
    expect(expanded).toMatch(/1 \+ # the demo/);
    expect(expanded).not.toContain("+++ b/README.md");
    expect(expanded).not.toMatch(/^\s*@@ /m);
    expect(expanded.split("Edited README.md").length - 1).toBe(1);
  });
});

describe("the lines above a command's last lines", () => {
  it("are counted from everything it printed, not from the part kept for the model", async () => {
    tui.server.enqueue(reply().toolUse("run_command", { command: "seq 1 20000" }), reply().text("Counted."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("count far");
    await app.waitFor("Counted.");
    expect(app.frame()).toContain("… 19,995 more lines above (Ctrl+O shows everything)");
    expect(app.frame()).toMatch(/19999\n\s+20000/);
  });

  it("are counted from everything printed so far while it runs", async () => {
    tui.server.enqueue(reply().toolUse("run_command", { command: "seq 1 3000; sleep 30" }), reply().text("Stopped."));
    const app = await withModel();
    await app.waitFor(/index: fresh/);
    await app.submit("count and wait");
    await app.waitFor("… 2,995 more lines above");
    await app.write("\u001b");
    await app.waitFor("Interrupted");
  });
});

describe("sylk ask --output-format stream-json", () => {
  it("prints a command's output as tool_output events before its result", async () => {
    const project = createTempProject({ "README.md": "# demo\n" });
    try {
      tui.server.enqueue(reply().toolUse("run_command", { command: "echo first; sleep 0.3; echo second" }), reply().text("Done."));
      const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl };
      const run = await runCli(["ask", "--yes", "--permission-mode", "bypass", "--output-format", "stream-json", "go"], {
        cwd: project.root,
        env,
      });
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      const output = events.filter((event) => event.type === "tool_output");
      expect(output.map((event) => event.text).join("")).toBe("first\nsecond\n");
      const resultAt = events.findIndex((event) => event.type === "tool_result");
      expect(events.indexOf(output.at(-1)!)).toBeLessThan(resultAt);
    } finally {
      project.cleanup();
    }
  });
});
