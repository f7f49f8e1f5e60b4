/**
 * Byte layout of a full-text snapshot (`fts_documents`, `fts_postings`).
 *
 * Terms are spread over a power-of-two number of buckets by a hash of the
 * term, one row each, so that a search reading only its query's terms
 * (`sylk search "…"` in a new process) reads a few rows of a few kilobytes
 * instead of the whole index, while a save writes a couple of thousand rows
 * rather than one per term (84k on a 28k-file repository).
 *
 * Postings are little-endian 32-bit integers, ids ascending, so that a
 * search uses them where they lie: a one-off search meets tens to hundreds
 * of thousands of postings before V8 has compiled anything, and decoding
 * them one by one (varints, or copies into arrays) cost 5–40 ms.
 *
 * - documents: dense by id up to the highest: each one's length (BM25's
 *   document length) as a little-endian 32-bit float, then a byte per id,
 *   1 for the snapshot's documents: a one-off search reads all of them, and
 *   copying bytes costs no decoding.
 * - bucket: term count and byte length of the header (varints); the
 *   header, the terms joined by spaces in UTF-8 (terms never hold spaces:
 *   documents store theirs space-separated); each term's postings length in
 *   32-bit words (varints); zeros up to a multiple of four bytes; then the
 *   postings of each term in header order.
 * - postings: slot count, then per slot its id count and ids (a term's
 *   documents by frequency slot, see `search/flexsearch-postings.ts`).
 */
import { fnv1a } from "../fnv1a.js";

/** A term's document ids by frequency slot; a slot may be missing. */
export type StoredSlots = ReadonlyArray<ArrayLike<number> | null | undefined>;

/** Decoded postings: views of the row's bytes (or copies), which the caller may keep. */
export type DecodedSlots = Array<Int32Array | undefined>;

/**
 * The documents of a snapshot, dense by id (ids are small integers, and the
 * index keeps them so in memory): restoring them is two copies, where a
 * list of ids took a pass of 86k steps before V8 had compiled it.
 */
export interface StoredDocuments {
  /** 1 for each document of the snapshot, 0 elsewhere. */
  live: Uint8Array;
  /** BM25 length of each document. */
  lengths: Float32Array;
  /** How many documents are live, and the sum of their lengths. */
  count: number;
  totalLength: number;
}

/** Terms per bucket aimed at: ≈ 3 KB rows on a large repository. */
const TERMS_PER_BUCKET = 64;

/** Bucket count for this many terms: a power of two, so a term's bucket is a mask of its hash. */
export function bucketCountFor(terms: number): number {
  let buckets = 1;
  while (buckets * TERMS_PER_BUCKET < terms) buckets *= 2;
  return buckets;
}

/** FNV-1a over the term's UTF-16 code units: stable across versions, since buckets are stored. */
export function bucketOf(term: string, buckets: number): number {
  return (fnv1a(term) >>> 0) & (buckets - 1);
}

/** Bytes, varints and aligned little-endian 32-bit words, into one growing buffer. */
class ByteWriter {
  private bytes: Uint8Array;
  private words: Int32Array;
  private view: DataView;
  length = 0;

  /** `capacity`: what is expected, rounded up to whole words; the buffer grows past it if need be. */
  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array((capacity + 3) & ~3);
    this.words = new Int32Array(this.bytes.buffer);
    this.view = new DataView(this.bytes.buffer);
  }

  /** At a multiple of four bytes (`align` first). */
  word(value: number): void {
    if (this.length + 4 > this.bytes.length) this.grow(4);
    if (LITTLE_ENDIAN) this.words[this.length >> 2] = value;
    else this.view.setInt32(this.length, value, true);
    this.length += 4;
  }

  /** Words at a multiple of four bytes, copied in bulk (a save writes 4M of them). */
  wordList(values: ArrayLike<number>): void {
    const size = values.length * 4;
    if (this.length + size > this.bytes.length) this.grow(size);
    if (LITTLE_ENDIAN) this.words.set(values, this.length >> 2);
    else for (let index = 0; index < values.length; index++) this.view.setInt32(this.length + index * 4, values[index] as number, true);
    this.length += size;
  }

  /** Zeros up to a multiple of four bytes. */
  align(): void {
    while (this.length % 4 !== 0) this.append(ZERO);
  }

  /** A view of what was written from `start` to `end`, valid until the next write. */
  subarray(start: number, end: number): Uint8Array {
    return this.bytes.subarray(start, end);
  }

  varint(value: number): void {
    if (this.length + 5 > this.bytes.length) this.grow(5);
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.bytes.length) this.grow(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  private grow(needed: number): void {
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, (this.length + needed + 3) & ~3));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.words = new Int32Array(grown.buffer);
    this.view = new DataView(grown.buffer);
  }
}

const ZERO = new Uint8Array(1);

/**
 * Bytes that are not a snapshot as `encodeBuckets` and `encodeDocuments`
 * write it: every read of the decoder is checked against the bytes there
 * are, so damage surfaces as this error and never as a RangeError (or a
 * huge allocation) from deep inside.
 */
export class MalformedSnapshotError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = "MalformedSnapshotError";
  }
}

/** The longest varint written: a 32-bit value takes at most five bytes. */
const MAX_VARINT_BYTES = 5;

class ByteReader {
  constructor(
    private readonly bytes: Uint8Array,
    public offset = 0,
  ) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  varint(): number {
    const { bytes } = this;
    let value = 0;
    for (let index = 0; index < MAX_VARINT_BYTES; index++) {
      if (this.offset >= bytes.length) throw new MalformedSnapshotError("a number runs past the end of the row");
      const byte = bytes[this.offset++] as number;
      value += (byte & 0x7f) * 2 ** (7 * index);
      if ((byte & 0x80) === 0) return value;
    }
    throw new MalformedSnapshotError("a number is longer than any the snapshot writes");
  }
}

/** Typed arrays use the platform's byte order; the stored one is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Dense by id up to the highest live one: lengths, then the live flags. */
export function encodeDocuments(documents: Pick<StoredDocuments, "live" | "lengths">): Uint8Array {
  const { live, lengths } = documents;
  if (lengths.length !== live.length) throw new Error("Every snapshot document needs its length.");
  const size = live.length;
  const bytes = new Uint8Array(size * 5);
  if (LITTLE_ENDIAN) bytes.set(new Uint8Array(lengths.buffer, lengths.byteOffset, lengths.byteLength));
  else
    lengths.forEach((length, id) => {
      new DataView(bytes.buffer).setFloat32(id * 4, length, true);
    });
  bytes.set(live, size * 4);
  return bytes;
}

/**
 * The arrays are views of `bytes` when it is aligned (better-sqlite3 hands
 * out a fresh copy of a blob): pass bytes nothing else uses.
 */
export function decodeDocuments(bytes: Uint8Array, count: number, totalLength: number, maxId: number): StoredDocuments {
  if (bytes.length % 5 !== 0) throw new MalformedSnapshotError("its documents are not whole");
  const size = bytes.length / 5;
  // `encodeDocuments` writes every id up to the highest (none for an empty index, whose highest is noted as 0).
  if (!(size === maxId + 1 || (size === 0 && maxId === 0)))
    throw new MalformedSnapshotError(`it holds ${size} documents where its highest id says ${maxId + 1}`);
  if (!Number.isSafeInteger(count) || count < 0 || count > size)
    throw new MalformedSnapshotError(`its document count (${count}) is impossible`);
  if (!Number.isFinite(totalLength) || totalLength < 0) throw new MalformedSnapshotError("its total document length is impossible");
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const { buffer, byteOffset } = aligned;
  const live = new Uint8Array(buffer, byteOffset + size * 4, size);
  if (LITTLE_ENDIAN) return { live, lengths: new Float32Array(buffer, byteOffset, size), count, totalLength };
  const view = new DataView(buffer, byteOffset);
  const lengths = new Float32Array(size);
  for (let id = 0; id < size; id++) lengths[id] = view.getFloat32(id * 4, true);
  return { live, lengths, count, totalLength };
}

/** The 32-bit words a term's postings take (see the layout above). */
function wordCount(slots: StoredSlots): number {
  let words = 1;
  for (const ids of slots) words += 1 + (ids?.length ?? 0);
  return words;
}

function encodePostings(slots: StoredSlots, writer: ByteWriter): void {
  writer.word(slots.length);
  for (const ids of slots) {
    const list = ids ?? [];
    writer.word(list.length);
    let ascending = true;
    for (let index = 1; index < list.length && ascending; index++) ascending = (list[index] as number) > (list[index - 1] as number);
    // Ids are added in ascending order, except after a reconcile added a late document.
    writer.wordList(ascending ? list : Array.from(list).sort((a, b) => a - b));
  }
}

/**
 * A term's postings from its words, without the ids marked 1 in `leftOut`.
 * Counts are checked against the words there are, and each slot's ids
 * (ascending) against `maxId` by their first and last: a check per slot,
 * not per id, since a one-off search meets hundreds of thousands of ids.
 */
function decodePostings(words: Int32Array, leftOut: Uint8Array | undefined, maxId: number): DecodedSlots {
  const slotCount = words[0] as number;
  if (!(slotCount >= 0 && slotCount < words.length)) throw new MalformedSnapshotError("a term has more frequency slots than words");
  const slots: DecodedSlots = new Array<Int32Array | undefined>(slotCount);
  let position = 1;
  for (let slot = 0; slot < slotCount; slot++) {
    if (position >= words.length) throw new MalformedSnapshotError("a term's postings end before its slots do");
    const count = words[position++] as number;
    if (!(count >= 0 && count <= words.length - position)) throw new MalformedSnapshotError("a term's postings run past its words");
    let ids = words.subarray(position, position + count);
    position += count;
    if (count > 0 && !((ids[0] as number) >= 0 && (ids[count - 1] as number) <= maxId)) {
      throw new MalformedSnapshotError("a term's postings name documents the snapshot does not hold");
    }
    if (leftOut) ids = withoutMarked(ids, leftOut);
    if (ids.length > 0) slots[slot] = ids;
  }
  if (position !== words.length) throw new MalformedSnapshotError("a term's postings do not fill its words");
  return slots;
}

function withoutMarked(ids: Int32Array, marked: Uint8Array): Int32Array {
  const kept = new Int32Array(ids.length);
  let count = 0;
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index] as number;
    if (marked[id] !== 1) kept[count++] = id;
  }
  return count === ids.length ? ids : kept.subarray(0, count);
}

/**
 * Groups terms into `buckets` rows; returns each non-empty bucket's number
 * and bytes (views of one buffer: a save writes about 2k rows, and a
 * buffer each was most of its garbage).
 */
export function encodeBuckets(terms: ReadonlyArray<readonly [string, StoredSlots]>, buckets: number): Array<[number, Uint8Array]> {
  const members: Array<Array<readonly [string, StoredSlots]>> = Array.from({ length: buckets }, () => []);
  for (const entry of terms) (members[bucketOf(entry[0], buckets)] as Array<readonly [string, StoredSlots]>).push(entry);
  const encoder = new TextEncoder();
  // Sized up front (postings, terms, and a margin for varints, spaces and padding): growing by doubling was a third of a save.
  let capacity = 16 * buckets;
  for (const [term, slots] of terms) capacity += 4 * wordCount(slots) + 3 * term.length + 6;
  const out = new ByteWriter(capacity);
  const ranges: Array<[number, number, number]> = [];
  members.forEach((entries, bucket) => {
    if (entries.length === 0) return;
    // Each row starts at a multiple of four, so that its words are aligned in the buffer too.
    out.align();
    const start = out.length;
    writeBucket(entries, out, encoder);
    ranges.push([bucket, start, out.length]);
  });
  return ranges.map(([bucket, start, end]) => [bucket, out.subarray(start, end)]);
}

/**
 * One bucket's row from its terms (all of which hash to it), as
 * `encodeBuckets` writes each: for a snapshot built a bucket at a time
 * (`search/segmented-snapshot-build.ts`), which never holds every row.
 */
export function encodeBucket(entries: ReadonlyArray<readonly [string, StoredSlots]>): Uint8Array {
  let capacity = 16;
  for (const [term, slots] of entries) capacity += 4 * wordCount(slots) + 3 * term.length + 6;
  const out = new ByteWriter(capacity);
  writeBucket(entries, out, new TextEncoder());
  return out.subarray(0, out.length);
}

function writeBucket(entries: ReadonlyArray<readonly [string, StoredSlots]>, out: ByteWriter, encoder: TextEncoder): void {
  const header = encoder.encode(entries.map(([term]) => term).join(" "));
  out.varint(entries.length);
  out.varint(header.length);
  out.append(header);
  for (const [, slots] of entries) out.varint(wordCount(slots));
  out.align();
  for (const [, slots] of entries) encodePostings(slots, out);
}

/** How a bucket row is read: all its terms or the `wanted` ones, without the ids marked 1 in `leftOut`. */
export interface DecodeBucketOptions {
  wanted?: ReadonlySet<string>;
  leftOut?: Uint8Array;
  /** The snapshot's highest document id: postings never name a higher one. */
  maxId: number;
}

/**
 * The terms of one bucket row with their postings; with `wanted`, only
 * those terms' postings are read (the others are skipped by length). The
 * postings are views of `bytes` where it is aligned (better-sqlite3 hands
 * out a fresh copy of a blob): pass bytes nothing else uses. Bytes that do
 * not decode throw `MalformedSnapshotError`.
 */
export function decodeBucket(bytes: Uint8Array, options: DecodeBucketOptions): Array<[string, DecodedSlots]> {
  const { wanted, leftOut, maxId } = options;
  const reader = new ByteReader(bytes);
  const count = reader.varint();
  const headerLength = reader.varint();
  if (headerLength > reader.remaining) throw new MalformedSnapshotError("its terms run past the end of the row");
  const header = Buffer.from(bytes.buffer, bytes.byteOffset + reader.offset, headerLength).toString("utf8");
  reader.offset += headerLength;
  const terms = header.split(" ");
  if (terms.length !== count) throw new MalformedSnapshotError("its header does not match its term count");
  const lengths: number[] = [];
  let totalWords = 0;
  for (let index = 0; index < count; index++) {
    const words = reader.varint();
    if (words < 1) throw new MalformedSnapshotError("a term has no postings");
    lengths.push(words);
    totalWords += words;
  }
  let offset = reader.offset + ((4 - (reader.offset % 4)) % 4);
  if (offset + totalWords * 4 !== bytes.length) throw new MalformedSnapshotError("its postings do not fill the row exactly");
  const aligned = LITTLE_ENDIAN && bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const found: Array<[string, DecodedSlots]> = [];
  terms.forEach((term, index) => {
    const words = lengths[index] as number;
    if (!wanted || wanted.has(term)) found.push([term, decodePostings(wordsAt(aligned, offset, words), leftOut, maxId)]);
    offset += words * 4;
  });
  return found;
}

function wordsAt(bytes: Uint8Array, offset: number, count: number): Int32Array {
  if (LITTLE_ENDIAN) return new Int32Array(bytes.buffer, bytes.byteOffset + offset, count);
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * 4);
  return Int32Array.from({ length: count }, (_, index) => view.getInt32(index * 4, true));
}
