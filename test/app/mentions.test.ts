import { afterEach, describe, expect, it } from "vitest";
import { Mentions, promptAsTyped } from "../../src/app/mentions.js";
import { createTempProject, type TempProject } from "../helpers/temp-project.js";

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const noIndex = { indexedPaths: () => [], symbolsStartingWith: () => [] };

describe("a sent prompt as the user typed it", () => {
  it("is the prompt without the files its mentions attached, whatever those files hold", () => {
    project = createTempProject({
      "src/a.ts": "export const a = 1;\n",
      "notes.md": 'quoted: \n\n<attached mention="@src/a.ts" path="x" lines="1-1">\nnot a real block\n</attached>\n',
    });
    const mentions = new Mentions(project.root, noIndex);
    const typed = "compare @src/a.ts with @notes.md, please";
    const sent = mentions.attach(typed);
    expect(sent.attachments.map((attachment) => attachment.path)).toEqual(["src/a.ts", "notes.md"]);
    expect(sent.prompt).toContain("export const a = 1;");
    expect(promptAsTyped(sent.prompt)).toBe(typed);
  });

  it("keeps typed text that only looks like an attachment, and a prompt without any", () => {
    const typed = 'how is this block built?\n\n<attached mention="@x" path="x" lines="1-2">\n</attached>';
    expect(promptAsTyped(typed)).toBe(typed);
    expect(promptAsTyped("plain question")).toBe("plain question");
  });
});
