import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseCommandFile } from "../../src/commands/command-file.js";
import { invokedCommand, loadCustomCommands } from "../../src/commands/custom-commands.js";
import { expandCommand, splitWords } from "../../src/commands/expand-command.js";
import { plantFifo } from "../helpers/fifo.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => project?.cleanup());

describe("expandCommand", () => {
  it("puts $ARGUMENTS and $1…$9 in place; quotes group words; a missing word is empty", () => {
    const body = { body: "Fix $1 in $2 ($3). All: $ARGUMENTS; $10 stays" };
    expect(expandCommand(body, `bug-12 "src/a b.ts"`)).toBe('Fix bug-12 in src/a b.ts (). All: bug-12 "src/a b.ts"; $10 stays');
    expect(splitWords(`a 'b c' "d"`)).toEqual(["a", "b c", "d"]);
  });

  it("appends ARGUMENTS when the body uses none, and leaves replacement patterns in arguments alone", () => {
    expect(expandCommand({ body: "Lint." }, "src $& $1")).toBe("Lint.\n\nARGUMENTS: src $& $1");
    expect(expandCommand({ body: "Lint." }, "")).toBe("Lint.");
    expect(expandCommand({ body: "Say $ARGUMENTS" }, "$&")).toBe("Say $&");
  });
});

describe("parseCommandFile", () => {
  const file = { name: "review", path: "/x/review.md", source: "project" as const };

  it("reads Claude Code's front matter, its tool names as Sylk's, and ignores keys Sylk does not use", () => {
    const parsed = parseCommandFile(
      "---\ndescription: Review\nargument-hint: <file>\nmodel: claude-haiku-4-5\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\ndisable-model-invocation: true\n---\nReview $1\n",
      file,
    );
    expect(parsed).toMatchObject({
      name: "review",
      description: "Review",
      argumentHint: "<file>",
      model: "claude-haiku-4-5",
      allowedTools: ["run_command(git add:*)", "run_command(git status:*)", "read_file"],
      body: "Review $1",
    });
  });

  it("without front matter the first line describes it; a bad file says what is wrong", () => {
    expect(parseCommandFile("# Lint everything\nRun the linters.\n", file)).toMatchObject({ description: "Lint everything" });
    expect(parseCommandFile("---\nmodel: http://evil/x\n---\nhi\n", file)).toMatchObject({ message: expect.stringContaining("model") });
    expect(parseCommandFile('---\nallowed-tools: ["rm -rf /"]\n---\nhi\n', file)).toMatchObject({
      message: expect.stringContaining("a rule looks like tool or tool(pattern)"),
    });
    expect(parseCommandFile("---\ndescription: empty\n---\n", file)).toMatchObject({ message: expect.stringContaining("no prompt") });
  });
});

describe("loadCustomCommands", () => {
  it("names files by their folders, the user's wins over the project's, and links out, FIFOs and odd names are refused", () => {
    project = createTempProject({
      ".sylk/commands/frontend/lint.md": "Lint.\n",
      ".sylk/commands/review.md": "Project review.\n",
      ".sylk/commands/bad name.md": "x\n",
    });
    const home = join(project.sylkHome, "commands");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "review.md"), "My review.\n");
    const outside = join(project.sylkHome, "..", "elsewhere.md");
    writeFileSync(outside, "Outside.\n");
    symlinkSync(outside, join(project.root, ".sylk", "commands", "out.md"));
    const fifo = plantFifo(join(project.root, ".sylk", "commands", "pipe.md"));
    const { commands, errors } = loadCustomCommands({ sylkHome: project.sylkHome, root: project.root });
    expect(commands.map((command) => [command.name, command.source, command.body])).toEqual([
      ["frontend:lint", "project", "Lint."],
      ["review", "user", "My review."],
    ]);
    const messages = errors.map((error) => error.message).join("\n");
    expect(messages).toMatch(/symbolic link to .*elsewhere\.md, outside the project/);
    expect(messages).toContain("a FIFO (named pipe), not a regular file");
    expect(messages).toContain("/review is already the user's");
    expect(messages).toContain("letters, digits");
    fifo.remove();
    expect(invokedCommand("/frontend:lint  src a", commands)).toMatchObject({ command: { name: "frontend:lint" }, args: "src a" });
    expect(invokedCommand("/frontend", commands)).toBeUndefined();
  });
});
