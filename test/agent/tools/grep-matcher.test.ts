import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchingLines, Prefilter, searchFiles, UnmaskedFiles, type FileHits } from "../../../src/agent/tools/grep-matcher.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

let project: TempProject;
beforeEach(() => {
  project = createTempProject({
    "one.txt": "hit\nmiss\nhit\n",
    "two.txt": "hit\n",
    "three.txt": "hit\nhit\n",
  });
});
afterEach(() => project.cleanup());

const path = (name: string) => join(project.root, name);

describe("grep matching", () => {
  it("opens a named pipe without waiting for a writer and finds nothing in it", () => {
    execFileSync("mkfifo", [path("pipe")]);
    const started = performance.now();
    expect(matchingLines(path("pipe"), /x/)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("reads a file up to the size limit whole, literal or not, and passes over one a byte larger", () => {
    const limit = 4096;
    const atLimit = `${"x".repeat(limit - 7)}\nneedle`;
    project.write("at-limit.txt", atLimit);
    project.write("over-limit.txt", `${atLimit}\n`);
    const search = (pattern: string) =>
      ["at-limit.txt", "over-limit.txt"].map((name) =>
        matchingLines(path(name), new RegExp(pattern), undefined, Prefilter.of(pattern, ""), limit),
      );
    // A literal (its first read passes over what lacks it, and is the text of what is kept) and a pattern without one (no prefilter).
    expect(search("needle")).toEqual([[[2, "needle"]], []]);
    expect(search("ne+dle$")).toEqual([[[2, "needle"]], []]);
    expect(search("^n\\w+$")).toEqual([[[2, "needle"]], []]);
    // Changed between two searches: the second read is of the file as it is, not the buffer of the first.
    project.write("at-limit.txt", "needle one\nneedle two\n");
    expect(search("needle")[0]).toEqual([
      [1, "needle one"],
      [2, "needle two"],
    ]);
  });

  it("lists files in order up to the limit and says whether more matches exist", () => {
    const files = ["one.txt", "two.txt", "three.txt"].map(path);
    const run = (maxResults: number) => {
      const seen: number[] = [];
      const hits: FileHits[] = [];
      const { more } = searchFiles(
        { pattern: "^hit$", flags: "", files, maxResults },
        (file) => seen.push(file),
        (found) => hits.push(found),
      );
      return { more, hits, seen };
    };
    expect(run(10)).toEqual({
      more: false,
      seen: [0, 1, 2],
      hits: [
        {
          file: 0,
          lines: [
            [1, "hit"],
            [3, "hit"],
          ],
        },
        { file: 1, lines: [[1, "hit"]] },
        {
          file: 2,
          lines: [
            [1, "hit"],
            [2, "hit"],
          ],
        },
      ],
    });
    expect(run(3)).toMatchObject({ more: true, seen: [0, 1, 2], hits: [{ file: 0 }, { file: 1 }] });
    expect(run(2)).toMatchObject({
      more: true,
      hits: [
        {
          file: 0,
          lines: [
            [1, "hit"],
            [3, "hit"],
          ],
        },
      ],
    });
  });

  it("remembers a file masking left unchanged only as long as it stays the same file", () => {
    const unmasked = new UnmaskedFiles();
    expect(matchingLines(path("one.txt"), /hit/, unmasked)).toHaveLength(2);
    project.write("one.txt", 'const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";\n');
    expect(matchingLines(path("one.txt"), /ghp_0123/, unmasked)).toEqual([]);
    expect(matchingLines(path("one.txt"), /token/, unmasked)).toEqual([[1, 'const token = "[REDACTED:github-token]";']]);
  });
});
