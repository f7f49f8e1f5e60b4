import { describe, expect, it } from "vitest";
import { fileDiff } from "../../../src/agent/tools/edit-file.js";
import { diffRows } from "../../../src/tui/format/diff-rows.js";

/** Two files' diffs as /diff joins them: an edited file, then a new one. */
const edited = fileDiff(
  "src/greet.ts",
  "export const greeting = 'hello';\nexport const count = 1;\n",
  "export const greeting = 'hello';\nexport const count = 2;\n",
).diff;
const created = fileDiff("src/new.ts", "", "export const created = true;\n", "/dev/null").diff;

describe("the rows of a diff of several files", () => {
  it("names each file and never draws the next file's header as a line of the one before", () => {
    const rows = diffRows(`${edited}\n${created}`, true);
    expect(rows).toEqual([
      { kind: "file", text: "src/greet.ts" },
      { kind: "context", line: 1, text: "export const greeting = 'hello';" },
      { kind: "removed", line: 2, text: "export const count = 1;" },
      { kind: "added", line: 2, text: "export const count = 2;" },
      { kind: "file", text: "src/new.ts" },
      { kind: "added", line: 1, text: "export const created = true;" },
    ]);
  });

  it("keeps a changed line that looks like a header (an SQL comment, a Markdown rule) as a line of its hunk", () => {
    const sql = fileDiff("schema.sql", "-- users\n+++ plus\ncreate table users();\n", "create table users();\n").diff;
    const rows = diffRows(`${sql}\n${created}`, true);
    expect(rows.filter((row) => row.kind === "removed")).toEqual([
      { kind: "removed", line: 1, text: "-- users" },
      { kind: "removed", line: 2, text: "+++ plus" },
    ]);
    expect(rows.filter((row) => row.kind === "file").map((row) => ("text" in row ? row.text : ""))).toEqual(["schema.sql", "src/new.ts"]);
  });

  it("draws a one-file diff without its header, as a tool's diff", () => {
    expect(diffRows(edited).map((row) => row.kind)).toEqual(["context", "removed", "added"]);
  });
});
