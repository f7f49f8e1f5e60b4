import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/config/schema.js";
import type { Candidate } from "../../../src/agent/tools/grep-files.js";
import { Ripgrep } from "../../../src/agent/tools/grep-ripgrep.js";
import { StreamedMatching } from "../../../src/agent/tools/grep-streamed.js";
import { GrepThread } from "../../../src/agent/tools/grep-thread.js";
import { createTempProject, type TempProject } from "../../helpers/temp-project.js";

const COUNT = 40;
const name = (index: number) => `f${String(index).padStart(3, "0")}.txt`;
let project: TempProject;
let thread: GrepThread;
let bin: string;

beforeEach(() => {
  // Files 3, 7, 11, … hold three hits each, the others one; file 20 none.
  project = createTempProject(
    Object.fromEntries(
      Array.from({ length: COUNT }, (_, index) => [
        name(index),
        index === 20 ? "miss\n" : index % 4 === 3 ? `hit ${index}\nmiss\nhit ${index} again\nhit ${index} last\n` : `miss\nhit ${index}\n`,
      ]),
    ),
  );
  thread = new GrepThread(300, 2);
  bin = mkdtempSync(join(tmpdir(), "sylk-streamed-rg-"));
});
afterEach(() => {
  thread.close();
  project.cleanup();
  rmSync(bin, { recursive: true, force: true });
});

const signal = new AbortController().signal;
const candidates = (): Candidate[] =>
  Array.from({ length: COUNT }, (_, index) => ({ shown: name(index), absolute: join(project.root, name(index)), within: name(index) }));

/** The files in an order of their own, in batches, as ripgrep names them. */
function streamed(matching: StreamedMatching, files: Candidate[], batch: number): void {
  const order = files.map((_, index) => (index * 7) % files.length);
  for (let start = 0; start < order.length; start += batch)
    matching.found(order.slice(start, start + batch).map((index) => files[index] as Candidate));
}

describe("matching the files ripgrep names while it still lists", () => {
  it("answers as one search of the whole list would, at every limit, whichever files were matched ahead", async () => {
    const files = candidates();
    for (const maxResults of [1, 2, 5, 13, 10_000]) {
      const search = { pattern: "^hit", flags: "", maxResults };
      const inOrder = await thread.search({ ...search, files: files.map((file) => file.absolute) }, signal);
      for (const [batch, ahead] of [
        [3, files.length],
        [5, 12],
        [40, 1],
      ] as const) {
        const matching = new StreamedMatching(thread, search, signal);
        // Only some files named before the list is whole: the rest are matched in order.
        streamed(matching, files.slice(0, ahead), batch);
        expect(matching.started).toBe(true);
        expect(await matching.outcome(files, search), `limit ${maxResults}, batches of ${batch}, ${ahead} ahead`).toEqual(inOrder);
      }
    }
  });

  it("stops at a file over its time, listing only what comes before it", async () => {
    const slowAt = 25;
    project.write(name(slowAt), `${"a".repeat(40)}!\n`);
    const files = candidates();
    const search = { pattern: "^(a+)+$|hit", flags: "", maxResults: 10_000 };
    for (const ahead of [files.length, 10]) {
      const matching = new StreamedMatching(thread, search, signal);
      streamed(matching, files.slice(0, ahead), 4);
      const outcome = await matching.outcome(files, search);
      expect(outcome.end).toEqual({ kind: "slow", file: slowAt });
      expect(outcome.hits.map((hits) => hits.file)).toEqual(
        Array.from({ length: slowAt }, (_, index) => index).filter((index) => index !== 20),
      );
    }
  });
});

describe("ripgrep's names as it writes them", () => {
  /** An `rg` on a path of its own that runs `body`. */
  function ripgrepRunning(body: string): Ripgrep {
    writeFileSync(join(bin, "rg"), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, "rg"), 0o755);
    return Ripgrep.onPath({ PATH: bin }) as Ripgrep;
  }

  const request = () => ({ root: project.root, under: "", literals: ["hit"], ignoreCase: false, config: defaultConfig().index });

  it("gives each whole name once, a name cut between two writes when it is whole", async () => {
    const ripgrep = ripgrepRunning(`printf './a/one.ts\\0sr'; sleep 0.3; printf 'c/two é.ts\\0./three.ts\\0'`);
    const given: string[][] = [];
    const listed = await ripgrep.filesHolding(request(), signal, (names) => given.push(names));
    expect(given).toEqual([["a/one.ts"], ["src/two é.ts", "three.ts"]]);
    expect(listed).toEqual(["a/one.ts", "src/two é.ts", "three.ts"]);
  });

  it("gives the names before ripgrep ends, so that they are matched while it still reads", async () => {
    const ripgrep = ripgrepRunning(`printf './${name(3)}\\0'; sleep 1; printf './${name(7)}\\0'`);
    const search = { pattern: "^hit", flags: "", maxResults: 100 };
    const matching = new StreamedMatching(thread, search, signal);
    const byName = new Map(candidates().map((file) => [file.within, file]));
    let firstMatchedAt: number | undefined;
    const searchOnce = thread.search.bind(thread);
    thread.search = (...args) => {
      firstMatchedAt ??= performance.now();
      return searchOnce(...args);
    };
    const listed =
      (await ripgrep.filesHolding(request(), signal, (names) => {
        matching.found(names.map((each) => byName.get(each) as Candidate));
      })) ?? [];
    // The first name was being matched while rg slept before writing the second.
    expect(performance.now() - (firstMatchedAt ?? Number.POSITIVE_INFINITY)).toBeGreaterThan(500);
    const files = listed.map((each) => byName.get(each) as Candidate);
    const outcome = await matching.outcome(files, search);
    expect(outcome.hits.map((hits) => hits.lines.length)).toEqual([3, 3]);
  });
});
