import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serialize } from "node:v8";
import { afterEach, describe, expect, it } from "vitest";
import {
  MERGE_READ_BYTES,
  PARTITION_BITS,
  partitionOf,
  readBufferBytes,
  SegmentReader,
  spillSegment,
} from "../../src/search/postings-spill.js";

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

/** Every term of `reader`, read a run of partitions at a time; checks each term is in its run and nothing follows the last. */
function readRuns(reader: SegmentReader, runs: number): Map<string, number[][]> {
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
  return seen;
}

describe("spilled postings segments", () => {
  it("are read back a run of partitions at a time, each term in its run, with its ids ascending", () => {
    const written = terms(3000);
    const segment = spillSegment(join(scratch(), "segment-0"), written);
    const seen = readRuns(new SegmentReader(segment), 64);
    expect(seen).toEqual(new Map(written.map(([term, slots]) => [term, slots.map((ids) => [...ids].sort((a, b) => a - b))])));
  });

  it("are read back the same through a buffer smaller than a term, which grows to hold it", () => {
    const written: Array<[string, number[][]]> = [...terms(500), [`long${"x".repeat(40)}名`, [[7, 9_000_000]]]];
    const segment = spillSegment(join(scratch(), "segment-0"), written);
    const whole = readRuns(new SegmentReader(segment), 16);
    const small = new SegmentReader(segment, 16);
    expect(small.bufferBytes).toBe(16);
    expect(readRuns(small, 16)).toEqual(whole);
    expect(whole.size).toBe(written.length);
    expect(small.bufferBytes).toBeGreaterThan(16);
  });

  it("share the merge's read budget: what they read through together is bounded whatever the segments' number", () => {
    // A buffer of 256 KB each was 23 MB for the 92 segments of a 497k-file first index, and grew with the repository.
    expect(readBufferBytes(1)).toBe(256 << 10);
    expect(readBufferBytes(8)).toBe(256 << 10);
    for (const readers of [33, 92, 370, 1000, 2048]) {
      const each = readBufferBytes(readers);
      expect(each).toBeLessThan(256 << 10);
      expect(each * readers).toBeLessThanOrEqual(MERGE_READ_BYTES);
    }
    // Past 2,048 segments each still reads a page at a time.
    expect(readBufferBytes(100_000)).toBe(4 << 10);
    expect(readBufferBytes(0)).toBe(256 << 10);
  });

  it("keep in memory their file and its length, not a table of where each partition starts", () => {
    const segment = spillSegment(join(scratch(), "segment-0"), terms(100));
    // A table of 65,537 offsets was 512 KB a segment, held until the merge.
    expect(serialize(segment).length).toBeLessThan(1024);
  });
});
