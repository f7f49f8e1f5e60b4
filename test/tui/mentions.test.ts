import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { completeMention, mentionAtCursor } from "../../src/tui/input/mention-completion.js";
import { editorOf } from "../../src/tui/input/line-editor.js";
import { messageRequests, reply } from "../helpers/fake-anthropic-server.js";
import { plantFifo } from "../helpers/fifo.js";
import { jsonLines, runCli } from "../helpers/run-cli.js";
import { createTempProject } from "../helpers/temp-project.js";
import { KEY } from "./render-app.js";
import { createAppFixture } from "./app-fixture.js";

/** `@path` mentions with fuzzy completion of files and symbols from the index; the mentioned file joins the turn. */
const FILES = {
  "src/parser/binding.ts": "export function parseBindingPattern(input: string) {\n  return input.trim();\n}\n",
  "src/lexer.ts": "export const tokens = [];\n",
  "docs/guide.md": "# Guide\n",
  ".env": "API_KEY=sk-live-123456789012345678901234\n",
};

const tui = createAppFixture();

describe("completing an @-mention", () => {
  it("finds the @word at the cursor, and Tab cycles through what matches it", () => {
    expect(mentionAtCursor(editorOf("look at @src/pa"))).toEqual({ start: 8, query: "src/pa" });
    expect(mentionAtCursor(editorOf("mail me@example"))).toBeUndefined();
    const source = () => [
      { text: "src/parser/binding.ts", detail: "file" },
      { text: "src/lexer.ts", detail: "file" },
    ];
    const first = completeMention(editorOf("see @sp"), undefined, source);
    expect(first?.editor.text).toBe("see @src/parser/binding.ts");
    const second = completeMention(first!.editor, first!.cycle, source);
    expect(second?.editor.text).toBe("see @src/lexer.ts");
    expect(completeMention(second!.editor, second!.cycle, source)?.editor.text).toBe("see @src/parser/binding.ts");
  });

  it("suggests files fuzzily and definitions by name, and Tab fills one in", async () => {
    const app = await tui.render({ files: FILES, consent: true });
    await app.waitFor(/index: fresh/);
    await app.write("explain @parbind");
    await app.waitFor("@src/parser/binding.ts file");
    await app.write(KEY.tab);
    await app.waitFor("❯ explain @src/parser/binding.ts");
    await app.write(" and @parseBind");
    await app.waitFor(/@parseBindingPattern function · src\/parser\/binding\.ts:1-3/);
  });
});

describe("an @-mentioned file or definition", () => {
  it("is attached to the prompt the model gets, and the screen says so; secrets files never are", async () => {
    tui.server.enqueue(reply().text("It trims."));
    const app = await tui.render({ files: FILES, consent: true, env: tui.modelEnv() });
    await app.waitFor(/index: fresh/);
    await app.submit("what does @src/parser/binding.ts do with @.env?");
    await app.waitFor("It trims.");
    expect(app.frame()).toContain("Attached src/parser/binding.ts:1-3");
    const sent = JSON.stringify(messageRequests(tui.server)[0]?.body.messages);
    expect(sent).toContain('<attached mention=\\"@src/parser/binding.ts\\" path=\\"src/parser/binding.ts\\" lines=\\"1-3\\">');
    expect(sent).toContain("return input.trim();");
    expect(sent).not.toContain("sk-live-");
  });

  it("works in sylk ask, for a definition too", async () => {
    const project = createTempProject(FILES);
    try {
      tui.server.enqueue(reply().text("Done."));
      const env = { ...project.env, ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: tui.server.baseUrl };
      const run = await runCli(["ask", "--yes", "--output-format", "stream-json", "explain @parseBindingPattern"], {
        cwd: project.root,
        env,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(jsonLines(run.stdout)).toContainEqual({
        type: "attached",
        files: [{ path: "src/parser/binding.ts", start_line: 1, end_line: 3, truncated: false }],
        agent_id: "engineer-1",
        agent_type: "engineer",
      });
      expect(JSON.stringify(messageRequests(tui.server)[0]?.body.messages)).toContain("export function parseBindingPattern");
    } finally {
      project.cleanup();
    }
  });
});

describe("an @-mention of something that is not a regular file", () => {
  it("a FIFO is not opened (the session would freeze): the screen says why, and the prompt goes on without it", async () => {
    tui.server.enqueue(reply().text("Answered without it."));
    const app = await tui.render({ files: FILES, consent: true, env: tui.modelEnv() });
    const fifo = plantFifo(join(app.project.root, "notes.md"));
    try {
      await app.waitFor(/index: fresh/);
      await app.submit("what is in @notes.md and @src?");
      await app.waitFor("Answered without it.", 8_000);
      expect(app.frame()).toContain("@notes.md was not attached: it is a FIFO (named pipe), not a regular file.");
      expect(app.frame()).toContain("@src was not attached: it is a directory, not a regular file.");
      expect(JSON.stringify(messageRequests(tui.server)[0]?.body.messages)).not.toContain("<attached");
    } finally {
      fifo.remove();
    }
  });
});
