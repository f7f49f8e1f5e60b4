import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchingLines, searchFiles, UnmaskedFiles, type FileHits } from "../../../src/agent/tools/grep-matcher.js";
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
