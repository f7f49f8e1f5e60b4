import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serialize } from "node:v8";
import { afterEach, describe, expect, it } from "vitest";
import { PARTITION_BITS, partitionOf, SegmentReader, spillSegment } from "../../src/search/postings-spill.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "sylk-spill-"));
  directories.push(directory);
  return directory;
}

/** Terms spread over the partitions, some with non-ASCII text, each with a few slots of ids (a slot may be empty). */
function terms(count: number): Array<[string, number[][]]> {
  return Array.from({ length: count }, (_, index) => [
    `term${index}${index % 7 === 0 ? "é名" : ""}`,
    [[index, index + 3, index + 1000], [], [index * 2]],
  ]);
}

describe("spilled postings segments", () => {
  it("are read back a run of partitions at a time, each term in its run, with its ids ascending", () => {
    const written = terms(3000);
    const segment = spillSegment(join(scratch(), "segment-0"), written);
    const reader = new SegmentReader(segment);
    const runs = 64;
    const partitionsPerRun = (1 << PARTITION_BITS) / runs;
    const seen = new Map<string, number[][]>();
    try {
      for (let run = 0; run < runs; run++) {
        reader.readUntil((run + 1) * partitionsPerRun, (term, slots) => {
          expect(Math.floor(partitionOf(term) / partitionsPerRun)).toBe(run);
          seen.set(term, slots);
        });
      }
      // Past the last partition: nothing more.
      reader.readUntil(1 << PARTITION_BITS, () => expect.unreachable());
    } finally {
      reader.close();
    }
    expect(seen).toEqual(new Map(written.map(([term, slots]) => [term, slots.map((ids) => [...ids].sort((a, b) => a - b))])));
  });

  it("keep in memory their file and its length, not a table of where each partition starts", () => {
    const segment = spillSegment(join(scratch(), "segment-0"), terms(100));
    // A table of 65,537 offsets was 512 KB a segment, held until the merge.
    expect(serialize(segment).length).toBeLessThan(1024);
  });
});
