/**
 * Byte layout of a full-text snapshot (`fts_documents`, `fts_postings`).
 *
 * Terms are spread over a power-of-two number of buckets by a hash of the
 * term, one row each, so that a search reading only its query's terms
 * (`sylk search "…"` in a new process) reads a few rows of a few kilobytes
 * instead of the whole index, while a save writes a couple of thousand rows
 * rather than one per term (84k on a 28k-file repository).
 *
 * Postings are LEB128 varints; ids are ascending within a list and
 * written as differences, so most take one byte.
 *
 * - documents: the ids as 32-bit integers, then the lengths (BM25's
 *   document lengths) as unsigned ones, little-endian: a one-off search
 *   reads all of them, and copying bytes costs no decoding (varints of 86k
 *   documents took 5 ms before V8 had compiled the loop).
 * - bucket: term count; byte length of the header; the header, the terms
 *   joined by spaces in UTF-8 (terms never hold spaces: documents store
 *   theirs space-separated); each term's postings byte length; then the
 *   postings of each term in header order.
 * - postings: slot count, then per slot its id count and ids (a term's
 *   documents by frequency slot, see `search/flexsearch-postings.ts`).
 */

/** A term's document ids by frequency slot; a slot may be missing. */
export type StoredSlots = ReadonlyArray<readonly number[] | null | undefined>;

/** Decoded postings: fresh arrays the caller owns. */
export type DecodedSlots = Array<number[] | undefined>;

/** The documents of a snapshot, ids ascending, with their lengths. */
export interface StoredDocuments {
  ids: Int32Array;
  lengths: Uint32Array;
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
  let hash = 0x811c9dc5;
  for (let index = 0; index < term.length; index++) hash = Math.imul(hash ^ term.charCodeAt(index), 0x01000193);
  return (hash >>> 0) & (buckets - 1);
}

class ByteWriter {
  private bytes = new Uint8Array(1 << 12);
  length = 0;

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

  /** A copy of what was written since `from`. */
  slice(from = 0): Uint8Array {
    return this.bytes.slice(from, this.length);
  }

  private grow(needed: number): void {
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + needed));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

class ByteReader {
  constructor(
    private readonly bytes: Uint8Array,
    public offset = 0,
  ) {}

  varint(): number {
    const { bytes } = this;
    let byte = bytes[this.offset++] as number;
    let value = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = bytes[this.offset++] as number;
      value += (byte & 0x7f) * 2 ** shift;
    }
    return value;
  }
}

/** Typed arrays use the platform's byte order; the stored one is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

export function encodeDocuments(documents: StoredDocuments): Uint8Array {
  const { ids, lengths } = documents;
  if (lengths.length !== ids.length) throw new Error("Every snapshot document needs its length.");
  for (let index = 1; index < ids.length; index++) {
    if ((ids[index] as number) <= (ids[index - 1] as number)) throw new Error("Snapshot document ids must ascend.");
  }
  const bytes = new Uint8Array(ids.length * 8);
  if (LITTLE_ENDIAN) {
    bytes.set(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
    bytes.set(new Uint8Array(lengths.buffer, lengths.byteOffset, lengths.byteLength), ids.byteLength);
    return bytes;
  }
  const view = new DataView(bytes.buffer);
  ids.forEach((id, index) => view.setInt32(index * 4, id, true));
  lengths.forEach((length, index) => view.setUint32(ids.byteLength + index * 4, length, true));
  return bytes;
}

/** The arrays are views of `bytes` when it is aligned (better-sqlite3 hands out a fresh copy of a blob): pass bytes nothing else uses. */
export function decodeDocuments(bytes: Uint8Array): StoredDocuments {
  if (bytes.length % 8 !== 0) throw new Error("Damaged full-text snapshot: its documents are not whole.");
  const count = bytes.length / 8;
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const { buffer, byteOffset } = aligned;
  if (LITTLE_ENDIAN) return { ids: new Int32Array(buffer, byteOffset, count), lengths: new Uint32Array(buffer, byteOffset + count * 4, count) };
  const view = new DataView(buffer, byteOffset);
  const ids = new Int32Array(count);
  const lengths = new Uint32Array(count);
  for (let index = 0; index < count; index++) {
    ids[index] = view.getInt32(index * 4, true);
    lengths[index] = view.getUint32(count * 4 + index * 4, true);
  }
  return { ids, lengths };
}

function encodePostings(slots: StoredSlots, writer: ByteWriter): void {
  writer.varint(slots.length);
  for (const ids of slots) {
    const list = ids ?? [];
    writer.varint(list.length);
    let previous = 0;
    let ascending = true;
    for (let index = 0; index < list.length && ascending; index++) {
      const id = list[index] as number;
      ascending = id > previous;
      previous = id;
    }
    // Ids are added in ascending order, except after a reconcile added a late document.
    const sorted = ascending ? list : [...list].sort((a, b) => a - b);
    previous = 0;
    for (const id of sorted) {
      writer.varint(id - previous);
      previous = id;
    }
  }
}

function decodePostings(reader: ByteReader): DecodedSlots {
  const slotCount = reader.varint();
  const slots: DecodedSlots = new Array<number[] | undefined>(slotCount);
  for (let slot = 0; slot < slotCount; slot++) {
    const count = reader.varint();
    if (count === 0) continue;
    const ids: number[] = [];
    let id = 0;
    for (let index = 0; index < count; index++) ids.push((id += reader.varint()));
    slots[slot] = ids;
  }
  return slots;
}

/** Groups terms into `buckets` rows; returns each non-empty bucket's number and bytes. */
export function encodeBuckets(terms: ReadonlyArray<readonly [string, StoredSlots]>, buckets: number): Array<[number, Uint8Array]> {
  const members: Array<Array<readonly [string, StoredSlots]>> = Array.from({ length: buckets }, () => []);
  for (const entry of terms) (members[bucketOf(entry[0], buckets)] as Array<readonly [string, StoredSlots]>).push(entry);
  const encoder = new TextEncoder();
  const rows: Array<[number, Uint8Array]> = [];
  const postings = new ByteWriter();
  members.forEach((entries, bucket) => {
    if (entries.length === 0) return;
    postings.length = 0;
    const ends: number[] = [];
    for (const [, slots] of entries) {
      encodePostings(slots, postings);
      ends.push(postings.length);
    }
    const header = encoder.encode(entries.map(([term]) => term).join(" "));
    const row = new ByteWriter();
    row.varint(entries.length);
    row.varint(header.length);
    row.append(header);
    ends.forEach((end, index) => row.varint(end - (index === 0 ? 0 : (ends[index - 1] as number))));
    row.append(postings.slice());
    rows.push([bucket, row.slice()]);
  });
  return rows;
}

/**
 * The terms of one bucket row with their postings; with `wanted`, only
 * those terms' postings are decoded (the others are skipped by length).
 */
export function decodeBucket(bytes: Uint8Array, wanted?: ReadonlySet<string>): Array<[string, DecodedSlots]> {
  const reader = new ByteReader(bytes);
  const count = reader.varint();
  const headerLength = reader.varint();
  const header = Buffer.from(bytes.buffer, bytes.byteOffset + reader.offset, headerLength).toString("utf8");
  reader.offset += headerLength;
  const terms = header.split(" ");
  if (terms.length !== count) throw new Error("Damaged full-text snapshot: a bucket's header does not match its term count.");
  const lengths: number[] = [];
  for (let index = 0; index < count; index++) lengths.push(reader.varint());
  const found: Array<[string, DecodedSlots]> = [];
  let offset = reader.offset;
  terms.forEach((term, index) => {
    if (!wanted || wanted.has(term)) found.push([term, decodePostings(new ByteReader(bytes, offset))]);
    offset += lengths[index] as number;
  });
  return found;
}
