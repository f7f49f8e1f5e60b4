import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BLOCK_FILES } from "../../../src/agent/tools/grep-run.js";
import { GrepThread } from "../../../src/agent/tools/grep-thread.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
let thread: GrepThread;
const COUNT = BLOCK_FILES * 3 + 7;
const name = (index: number) => `f${String(index).padStart(4, "0")}.txt`;

beforeEach(() => {
  project = createTempProject(
    Object.fromEntries(Array.from({ length: COUNT }, (_, index) => [name(index), `hit ${index}\nmiss\nhit again ${index}\n`])),
  );
  thread = new GrepThread(1_000, 2);
});
afterEach(() => {
  thread.close();
  project.cleanup();
});

const files = () => Array.from({ length: COUNT }, (_, index) => `${project.root}/${name(index)}`);
const signal = new AbortController().signal;

describe("a search spread over threads", () => {
  it("lists the hits in file order, up to the limit, and says more exist", async () => {
    const all = await thread.search({ pattern: "^hit", flags: "", files: files(), maxResults: 10_000 }, signal);
    expect(all.end).toEqual({ kind: "done", more: false });
    expect(all.hits.map((hits) => hits.file)).toEqual(Array.from({ length: COUNT }, (_, index) => index));
    expect(all.hits[5]?.lines).toEqual([
      [1, "hit 5"],
      [3, "hit again 5"],
    ]);
    const limited = await thread.search({ pattern: "^hit", flags: "", files: files(), maxResults: 2 * BLOCK_FILES + 1 }, signal);
    expect(limited.end).toEqual({ kind: "done", more: true });
    expect(limited.hits.flatMap((hits) => hits.lines)).toHaveLength(2 * BLOCK_FILES + 1);
    expect(limited.hits.at(-1)).toEqual({ file: BLOCK_FILES, lines: [[1, `hit ${BLOCK_FILES}`]] });
  });

  it("stops at a file that takes longer than the budget, keeping only the hits of the files before it", async () => {
    const slowAt = BLOCK_FILES + 3;
    project.write(name(slowAt), `${"a".repeat(40)}!\n`);
    const outcome = await thread.search({ pattern: "^(a+)+$|hit", flags: "", files: files(), maxResults: 10_000 }, signal);
    expect(outcome.end).toEqual({ kind: "slow", file: slowAt });
    expect(Math.max(...outcome.hits.map((hits) => hits.file))).toBeLessThan(slowAt);
    // The stopped thread is replaced.
    expect((await thread.search({ pattern: "hit 1$", flags: "", files: files().slice(0, 2), maxResults: 5 }, signal)).hits).toEqual([
      { file: 1, lines: [[1, "hit 1"]] },
    ]);
  });
});
