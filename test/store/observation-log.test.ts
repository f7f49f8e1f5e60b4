import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ObservationLog } from "../../src/store/observation-log.js";
import { mulberry32 } from "../helpers/random-vectors.js";

const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/store/observation-log.ts");

let directory: string;
let path: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "sylk-observation-log-"));
  path = join(directory, "observations.log");
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const lines = () =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");

describe("ObservationLog", () => {
  it("appends JSON lines with increasing sequences to a 0600 file and reads back those after a position", () => {
    const log = ObservationLog.open<{ n: number }>(path);
    expect([1, 2, 3].map((n) => log.append({ n }).sequence)).toEqual([1, 2, 3]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(lines().map((line) => JSON.parse(line))).toEqual([
      { n: 1, sequence: 1 },
      { n: 2, sequence: 2 },
      { n: 3, sequence: 3 },
    ]);
    expect(log.readAfter(1)).toEqual({
      entries: [
        { n: 2, sequence: 2 },
        { n: 3, sequence: 3 },
      ],
      damaged: false,
      truncatedTail: false,
    });
    log.close();
  });

  it("writes each line with its secrets masked, and returns that line to be applied, as a replay would read it", () => {
    const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const log = ObservationLog.open<{ query: string; searchedAfter: string[] }>(path);
    const logged = log.append({ query: "push the branch", searchedAfter: [`token ${token}`] });
    expect(logged).toEqual({ query: "push the branch", searchedAfter: ["token [REDACTED:github-token]"], sequence: 1 });
    expect(readFileSync(path, "utf8")).not.toContain(token);
    expect(log.readAfter(0).entries).toEqual([logged]);
    log.close();
  });

  it("continues the sequence after a reopen, and after the state's position when the log is empty", () => {
    const log = ObservationLog.open<{ n: number }>(path);
    log.append({ n: 1 });
    log.close();
    const reopened = ObservationLog.open<{ n: number }>(path);
    expect(reopened.append({ n: 2 }).sequence).toBe(2);
    reopened.close();
    rmSync(path);
    const afterCompaction = ObservationLog.open<{ n: number }>(path, 41);
    expect(afterCompaction.append({ n: 3 }).sequence).toBe(42);
    afterCompaction.close();
  });

  it("cuts a torn last line off the file on open, so nothing is glued onto it", () => {
    const log = ObservationLog.open<{ n: number }>(path);
    log.append({ n: 1 });
    log.append({ n: 2 });
    log.close();
    appendFileSync(path, '{"n":3,"sequ');
    const reopened = ObservationLog.open<{ n: number }>(path);
    expect(readFileSync(path, "utf8").endsWith('"sequence":2}\n')).toBe(true);
    expect(reopened.append({ n: 3 }).sequence).toBe(3);
    expect(reopened.readAfter(0)).toEqual({ entries: [1, 2, 3].map((n) => ({ n, sequence: n })), damaged: false, truncatedTail: false });
    reopened.close();
  });

  it("reports the torn tail it truncates, also an unparsable last line that did get its newline", () => {
    writeFileSync(path, '{"n":1,"sequence":1}\n\u0000\u0000\u0000\n');
    const log = ObservationLog.open<{ n: number }>(path);
    expect(readFileSync(path, "utf8")).toBe('{"n":1,"sequence":1}\n');
    appendFileSync(path, '{"n":2,"seq');
    expect(log.readAfter(0)).toEqual({ entries: [{ n: 1, sequence: 1 }], damaged: false, truncatedTail: true });
    log.close();
  });

  it("skips and reports a damaged line in the middle, and a sequence that goes backwards", () => {
    writeFileSync(
      path,
      ['{"n":1,"sequence":1}', "not json", '{"n":2,"sequence":2}', '{"n":9,"sequence":1}', '{"n":3,"sequence":3}', ""].join("\n"),
    );
    const log = ObservationLog.open<{ n: number }>(path);
    const read = log.readAfter(0);
    expect(read.entries.map((e) => e.n)).toEqual([1, 2, 3]);
    expect(read.damaged).toBe(true);
    expect(read.truncatedTail).toBe(false);
    log.close();
  });

  it("compacts only when every line is applied, by renaming an empty 0600 file over the log", () => {
    const log = ObservationLog.open<{ n: number }>(path);
    for (let n = 1; n <= 5; n++) log.append({ n });
    expect(log.compact(4)).toBe(false);
    expect(lines()).toHaveLength(5);
    expect(log.compact(5)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(log.append({ n: 6 }).sequence).toBe(6);
    expect(lines()).toEqual(['{"n":6,"sequence":6}']);
    log.close();
  });

  it("loses no reported append and duplicates no sequence when a writer is SIGKILLed at random moments", async () => {
    const bundle = join(directory, "observation-log.mjs");
    await build({ entryPoints: [SOURCE], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "silent" });
    const writer = join(directory, "writer.mjs");
    writeFileSync(
      writer,
      `import { writeSync } from "node:fs";
import { ObservationLog } from ${JSON.stringify(bundle)};
const log = ObservationLog.open(process.argv[2]);
writeSync(1, "ready\\n");
for (let i = 0; ; i++) {
  const { sequence } = log.append({ i, payload: "x".repeat((i * 7919) % 4000) });
  writeSync(1, sequence + "\\n"); // reported only after append returned, i.e. after fsync
}
`,
    );
    const random = mulberry32(17);
    const reported = new Set<number>();
    for (let trial = 0; trial < 6; trial++) {
      const child = spawn(process.execPath, [writer, path], { stdio: ["ignore", "pipe", "inherit"] });
      let output = "";
      const exited = new Promise<void>((done) => child.on("exit", () => done()));
      await new Promise<void>((ready) =>
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString("utf8");
          if (output.startsWith("ready\n")) ready();
        }),
      );
      await new Promise((wait) => setTimeout(wait, 5 + random() * 60));
      child.kill("SIGKILL");
      await exited;
      for (const line of output.split("\n").slice(1, -1)) reported.add(Number(line)); // the last piece may be cut mid-number
      const injectTear = random() < 0.5;
      if (injectTear) appendFileSync(path, '{"i":-1,"payload":"xxxx'); // what a kill inside write() leaves

      const log = ObservationLog.open<{ i: number }>(path);
      const { entries, damaged } = log.readAfter(0);
      log.close();
      expect(damaged).toBe(false);
      const sequences = entries.map((e) => e.sequence);
      expect(sequences).toEqual(sequences.map((_, k) => k + 1)); // strictly increasing, no gap, no duplicate
      expect(entries.every((e) => e.i >= 0)).toBe(true);
      for (const sequence of reported) expect(sequences).toContain(sequence);
      expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
    }
    expect(reported.size).toBeGreaterThan(6);
  });
});
