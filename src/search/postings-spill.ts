import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { bucketOf } from "../store/postings-codec.js";
import type { TermSlots } from "./flexsearch-postings.js";

/**
 * A segment of postings spilled to a file of its own while a large index is
 * built (`SegmentedSnapshotBuild`), in an order that lets the build merge
 * every segment into snapshot rows a bucket at a time, reading each file
 * once, front to back.
 *
 * A snapshot's bucket is the low bits of the term's hash
 * (`postings-codec.ts`), and how many bits is only known once every term
 * is. So terms are filed here by the low `PARTITION_BITS` bits of the hash
 * read backwards: for any power-of-two bucket count up to the partitions',
 * a bucket's terms are then one contiguous run of partitions, and the runs
 * come in the order of their buckets' bit-reversed numbers.
 *
 * Layout, per term in partition order: its partition, its UTF-8 length and
 * bytes, its slot count, then per slot the id count and the ids ascending,
 * each as the difference from the one before (varints: most are a few
 * bytes). A reader finds where a run of partitions ends by reading the next
 * term's partition: a table of where each partition starts, kept per
 * segment until the merge, was 512 KB a segment (≈ 60 MB for the ≈ 120
 * segments of a 248k-file first index).
 */
export const PARTITION_BITS = 16;
const PARTITIONS = 1 << PARTITION_BITS;

/** `value`'s lowest `bits` bits in the opposite order. */
export function reverseBits(value: number, bits: number): number {
  let reversed = 0;
  for (let bit = 0; bit < bits; bit++) reversed |= ((value >>> bit) & 1) << (bits - 1 - bit);
  return reversed;
}

/** The partition a term is filed under. */
export function partitionOf(term: string): number {
  return reverseBits(bucketOf(term, PARTITIONS), PARTITION_BITS);
}

/** A spilled segment: its file and the file's length. */
export interface SpilledSegment {
  path: string;
  bytes: number;
}

/** Writes `terms` (each once) to a new file at `path`. */
export function spillSegment(path: string, terms: Iterable<readonly [string, TermSlots]>): SpilledSegment {
  const filed: Array<{ partition: number; term: string; slots: TermSlots }> = [];
  for (const [term, slots] of terms) filed.push({ partition: partitionOf(term), term, slots });
  filed.sort((a, b) => a.partition - b.partition);
  const out = new VarintWriter();
  for (const entry of filed) {
    out.varint(entry.partition);
    const bytes = Buffer.from(entry.term, "utf8");
    out.varint(bytes.length);
    out.bytes(bytes);
    out.varint(entry.slots.length);
    for (const ids of entry.slots) writeIds(out, ids ?? []);
  }
  const fd = openSync(path, "w");
  try {
    writeSync(fd, out.contents());
  } finally {
    closeSync(fd);
  }
  return { path, bytes: out.length };
}

function writeIds(out: VarintWriter, ids: ArrayLike<number>): void {
  let ascending = true;
  for (let index = 1; index < ids.length && ascending; index++) ascending = (ids[index] as number) > (ids[index - 1] as number);
  const sorted = ascending ? ids : Array.from(ids).sort((a, b) => a - b);
  out.varint(sorted.length);
  let previous = 0;
  for (let index = 0; index < sorted.length; index++) {
    const id = sorted[index] as number;
    out.varint(id - previous);
    previous = id;
  }
}

/**
 * What the merge's readers read through, all of them together. Each read
 * through 256 KB of its own, and the merge opens every segment at once, so
 * it held 256 KB a segment: 23 MB for the 92 segments of a 497k-file first
 * index, ≈ 90 MB at 2M files (docs/DESIGN-NOTES.md, "A first index's
 * full-text snapshot built on disk"). Shared, the buffers are smaller the
 * more segments there are, and only the number of reads grows (each from
 * the page cache the segment was just written to).
 */
export const MERGE_READ_BYTES = 8 << 20;
const MAX_READ_BUFFER_BYTES = 256 << 10;
const MIN_READ_BUFFER_BYTES = 4 << 10;

/** Each reader's buffer when `readers` read at once within `budget` bytes: between 4 KB and 256 KB. */
export function readBufferBytes(readers: number, budget = MERGE_READ_BYTES): number {
  const share = Math.floor(budget / Math.max(1, readers));
  return Math.min(MAX_READ_BUFFER_BYTES, Math.max(MIN_READ_BUFFER_BYTES, share));
}

/** Reads a spilled segment front to back, a range of partitions at a time. */
export class SegmentReader {
  private readonly fd: number;
  private buffer: Buffer;
  /** File offset of `buffer[0]`, and how many bytes of it are read. */
  private bufferStart = 0;
  private bufferLength = 0;
  private position = 0;
  /** The partition of the term at `position`, read ahead of it, or undefined when not read yet. */
  private nextPartition: number | undefined;

  /** `bufferBytes`: what it reads through (a term longer than that grows it). */
  constructor(
    private readonly segment: SpilledSegment,
    bufferBytes = MAX_READ_BUFFER_BYTES,
  ) {
    this.buffer = Buffer.alloc(bufferBytes);
    this.fd = openSync(segment.path, "r");
  }

  /** The bytes it reads through now. */
  get bufferBytes(): number {
    return this.buffer.length;
  }

  /**
   * Calls `visit` with each term of the partitions up to (not including)
   * `endPartition`, from where the last call ended, and its slots' ids.
   */
  readUntil(endPartition: number, visit: (term: string, slots: number[][]) => void): void {
    for (;;) {
      if (this.nextPartition === undefined) {
        if (this.position >= this.segment.bytes) return;
        this.nextPartition = this.varint();
      }
      if (this.nextPartition >= endPartition) return;
      this.nextPartition = undefined;
      const termLength = this.varint();
      const term = this.take(termLength).toString("utf8");
      const slotCount = this.varint();
      const slots: number[][] = new Array(slotCount);
      for (let slot = 0; slot < slotCount; slot++) {
        const count = this.varint();
        const ids = new Array<number>(count);
        let id = 0;
        for (let index = 0; index < count; index++) {
          id += this.varint();
          ids[index] = id;
        }
        slots[slot] = ids;
      }
      visit(term, slots);
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  private varint(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.byte();
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
  }

  private byte(): number {
    if (this.position >= this.bufferStart + this.bufferLength) this.fill(1);
    return this.buffer[this.position++ - this.bufferStart] as number;
  }

  private take(length: number): Buffer {
    if (this.position + length > this.bufferStart + this.bufferLength) this.fill(length);
    const offset = this.position - this.bufferStart;
    this.position += length;
    return this.buffer.subarray(offset, offset + length);
  }

  /** Refills the buffer from the current position with at least `needed` bytes. */
  private fill(needed: number): void {
    if (needed > this.buffer.length) this.buffer = Buffer.alloc(needed);
    this.bufferStart = this.position;
    this.bufferLength = readSync(this.fd, this.buffer, 0, this.buffer.length, this.position);
    if (this.bufferLength < needed) throw new Error(`A spilled postings segment ends early: ${this.segment.path}`);
  }
}

/** Varints and bytes into one growing buffer. */
class VarintWriter {
  private buffer = Buffer.alloc(1 << 20);
  length = 0;

  varint(value: number): void {
    this.ensure(5);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length++] = (rest & 0x7f) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.buffer[this.length++] = rest;
  }

  bytes(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  contents(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private ensure(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + more));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
