import { VECTOR_KERNEL_WASM_BASE64 } from "./vector-kernel-wasm.js";

/**
 * Exact brute-force similarity over many int8-quantised unit vectors, scored
 * by a WebAssembly SIMD kernel (src/search/vector-kernel.wat). At a few tens
 * of thousands of 256-d vectors a full scan costs a few milliseconds, so an
 * approximate index would buy little and cost recall.
 *
 * Quantisation uses one fixed scale for every vector (never a per-vector
 * max), so int32 dot products stay comparable across vectors and convert back
 * to approximate cosine by dividing by scale².
 */

/**
 * Default scale: components of a unit vector map to round(x * 127 / 0.35),
 * clamped to ±127. A 256-d unit vector's components are ~N(0, 1/256), i.e.
 * typically |x| ≈ 0.06 and rarely beyond 0.3, so 0.35 clips almost nothing
 * while leaving ~23 quantisation steps for a typical component (step ≈ 0.0028)
 * — far finer than a per-vector max over a full int8 range would lose by
 * being incomparable. Vectors with big outlier dimensions want a smaller scale.
 */
export const DEFAULT_INT8_SCALE = 127 / 0.35;

export interface Int8VectorScanOptions {
  /** Multiplier from float component to int8 before rounding and clamping. */
  scale?: number;
}

export interface ScoredSlot {
  slot: number;
  /** Approximate cosine similarity: int8 dot product / scale². */
  score: number;
}

/** The slice of the WebAssembly JS API used here; the ES2023 lib has no typings for it. */
/** A shared WebAssembly memory: its buffer is a SharedArrayBuffer, and it can be posted to a worker. */
export interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(deltaPages: number): number;
}
export interface KernelExports {
  readonly memory: WasmMemory;
  scan(queryPtr: number, wideQueryPtr: number, basePtr: number, count: number, dims: number, outPtr: number): void;
  collect(scoresPtr: number, count: number, threshold: number, dstPtr: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}

/** The kernel's arguments for one scan of every slot (see vector-kernel.wat). */
export interface KernelScan {
  queryPtr: number;
  wideQueryPtr: number;
  basePtr: number;
  count: number;
  dims: number;
  outPtr: number;
  /** Room for `count` int32 slot numbers: the candidates of top-k selection. */
  candidatesPtr: number;
}

const PAGE_BYTES = 65_536;
/** The kernel's declared maximum (2 GiB): a shared memory reserves it up front, as address space only. */
const MAX_PAGES = 32_768;
const MIN_CAPACITY = 1_024;
const QUERY_OFFSET = 0;

let kernelModule: object | undefined;

/**
 * The kernel compiled once per thread, instantiated over `memory`: a new
 * shared memory for a new scanner, or a scanner's memory on the thread that
 * scans it (vector-scan-thread.ts).
 */
export function instantiateKernel(memory?: WasmMemory): KernelExports {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  kernelModule ??= new wasm.Module(Buffer.from(VECTOR_KERNEL_WASM_BASE64, "base64"));
  const shared = memory ?? new wasm.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
  return new wasm.Instance(kernelModule, { env: { memory: shared } }).exports as KernelExports;
}

/** Runs a prepared scan and returns its int32 scores, a view of the kernel's memory. */
export function runKernelScan(kernel: KernelExports, scan: KernelScan): Int32Array {
  kernel.scan(scan.queryPtr, scan.wideQueryPtr, scan.basePtr, scan.count, scan.dims, scan.outPtr);
  return new Int32Array(kernel.memory.buffer, scan.outPtr, scan.count);
}

/**
 * The k best slots by int score, best first; ties go to the smaller slot.
 * `isLive` is consulted only for slots that would enter the top k.
 */
export function topSlots(scores: Int32Array, k: number, isLive: (slot: number) => boolean = () => true): Array<{ slot: number; score: number }> {
  const limit = Math.min(Math.floor(k), scores.length);
  if (!(limit > 0)) return [];
  const heap = new SlotMinHeap(limit);
  for (let slot = 0; slot < scores.length; slot++) offerSlot(heap, slot, scores[slot] as number, isLive);
  return heap.sortedBestFirst();
}

/** Slots arrive in ascending order, so an equal score loses the tie to the incumbent. */
function offerSlot(heap: SlotMinHeap, slot: number, score: number, isLive: (slot: number) => boolean): void {
  if (heap.isFull() && score <= heap.minScore()) return;
  if (isLive(slot)) heap.offer(slot, score);
}

/** Scores sampled to pick the candidate threshold. */
const THRESHOLD_SAMPLE = 1_024;
/**
 * The threshold is the sample's score that about CANDIDATE_MARGIN × k slots
 * should reach; fewer than k reach it with negligible probability, and then
 * selection simply runs again over every slot.
 */
const CANDIDATE_MARGIN = 4;

/**
 * Runs a prepared scan and returns what `topSlots` would return for its
 * scores, without walking all of them in JavaScript: the kernel collects the
 * slots whose score reaches a threshold sampled from the scores, and only
 * those few hundred are ranked. A plain JS pass over 86k scores took 7–8 ms
 * until V8 had optimised it, which made the first searches of every process
 * (and of the scan thread) slow; the kernel is compiled before its first call.
 */
export function scanTopSlots(
  kernel: KernelExports,
  scan: KernelScan,
  k: number,
  isLive: (slot: number) => boolean = () => true,
): Array<{ slot: number; score: number }> {
  runKernelScan(kernel, scan);
  return selectTopSlots(kernel, scan, k, isLive);
}

/** `topSlots` over the `count` scores at `outPtr` in the kernel's memory, using `candidatesPtr` as scratch. */
export function selectTopSlots(
  kernel: KernelExports,
  area: Pick<KernelScan, "outPtr" | "count" | "candidatesPtr">,
  k: number,
  isLive: (slot: number) => boolean = () => true,
): Array<{ slot: number; score: number }> {
  const scores = new Int32Array(kernel.memory.buffer, area.outPtr, area.count);
  const limit = Math.min(Math.floor(k), scores.length);
  if (!(limit > 0)) return [];
  let threshold = sampledThreshold(scores, limit);
  for (;;) {
    const found = kernel.collect(area.outPtr, area.count, threshold, area.candidatesPtr);
    const candidates = new Int32Array(kernel.memory.buffer, area.candidatesPtr, found);
    const heap = new SlotMinHeap(limit);
    for (let index = 0; index < found; index++) {
      const slot = candidates[index] as number;
      offerSlot(heap, slot, scores[slot] as number, isLive);
    }
    // Every slot scoring at least the threshold was offered: the top `limit`
    // are exact once that many made it in (or when no slot was left out).
    if (heap.isFull() || threshold === INT32_MIN) return heap.sortedBestFirst();
    threshold = INT32_MIN;
  }
}

const INT32_MIN = -0x8000_0000;

function sampledThreshold(scores: Int32Array, limit: number): number {
  const stride = Math.floor(scores.length / THRESHOLD_SAMPLE);
  if (stride < 2) return INT32_MIN;
  const sample = new Int32Array(THRESHOLD_SAMPLE);
  for (let index = 0; index < THRESHOLD_SAMPLE; index++) sample[index] = scores[index * stride] as number;
  sample.sort();
  const rankFromTop = Math.ceil((limit * CANDIDATE_MARGIN) / stride) + 1;
  return rankFromTop >= THRESHOLD_SAMPLE ? INT32_MIN : (sample[THRESHOLD_SAMPLE - rankFromTop] as number);
}

/**
 * `evenOffset` is added to even-indexed components: 0 for plain int8, or
 * STORED_EVEN_OFFSET for the stored-vector format the kernel expects.
 */
function quantizeInto(vector: Float32Array, target: Int8Array, offset: number, scale: number, evenOffset = 0): void {
  for (let index = 0; index < vector.length; index++) {
    const scaled = Math.round((vector[index] as number) * scale);
    // Clamp to ±127 (not -128) so the int8 range stays symmetric; the kernel also relies on it for the query.
    const clamped = scaled > 127 ? 127 : scaled < -127 ? -127 : scaled;
    // Int8Array stores modulo 256, so clamped + 128 lands as the unsigned byte the kernel reads.
    target[offset + index] = (index & 1) === 0 ? clamped + evenOffset : clamped;
  }
}

/**
 * Stored vectors keep even-indexed components offset by +128 (as unsigned
 * bytes): the kernel then reads each byte pair as one i16 without a sign
 * fix-up, saving an instruction per 16 bytes (see vector-kernel.wat).
 */
const STORED_EVEN_OFFSET = 128;

/** The stored form of a zero component pair, [0 + 128, 0], as one native-endian uint16 so fills are a single call. */
const STORED_ZERO_PAIR = new Uint16Array(Uint8Array.of(STORED_EVEN_OFFSET, 0).buffer)[0] as number;

/**
 * Memory layout: [query: dims bytes][split query: 2 × dims bytes][vectors: capacity × dims bytes]
 * [scores: capacity × int32][candidates: capacity × int32].
 * The query is plain int8; the split query is the kernel's scratch (the query
 * widened to i16 once per scan); vectors are in the stored format
 * (STORED_EVEN_OFFSET). The score area sits after the vectors so growth never
 * moves stored vectors; it is scratch, and is reset to zero vectors when new
 * vector slots take over its bytes (as are the candidates after it).
 */
export class Int8VectorScan {
  readonly dims: number;
  readonly scale: number;
  private readonly kernel: KernelExports;
  private bytes: Int8Array;
  private capacity = 0;
  private slotCount = 0;

  constructor(dims: number, options: Int8VectorScanOptions = {}) {
    if (!Number.isInteger(dims) || dims <= 0 || dims % 16 !== 0) {
      throw new RangeError(`Int8VectorScan: dims must be a positive multiple of 16 (one SIMD lane group), got ${dims}`);
    }
    const scale = options.scale ?? DEFAULT_INT8_SCALE;
    if (!Number.isFinite(scale) || scale <= 0) throw new RangeError(`Int8VectorScan: scale must be a positive finite number, got ${scale}`);
    this.dims = dims;
    this.scale = scale;
    this.kernel = instantiateKernel();
    this.bytes = new Int8Array(this.kernel.memory.buffer);
  }

  /** Quantises a unit vector with the given fixed scale (see DEFAULT_INT8_SCALE). */
  static quantize(vector: Float32Array, scale: number = DEFAULT_INT8_SCALE): Int8Array {
    const result = new Int8Array(vector.length);
    quantizeInto(vector, result, 0, scale);
    return result;
  }

  /** Number of slots allocated: highest slot ever set, plus one. */
  get size(): number {
    return this.slotCount;
  }

  set(slot: number, vector: Float32Array): void {
    this.checkSlot(slot);
    this.checkVector(vector, "vector");
    this.ensureCapacity(slot + 1);
    quantizeInto(vector, this.view(), this.slotOffset(slot), this.scale, STORED_EVEN_OFFSET);
    if (slot >= this.slotCount) this.slotCount = slot + 1;
  }

  /** Zeroes a slot: it then scores 0 against everything. */
  clear(slot: number): void {
    this.checkSlot(slot);
    if (slot >= this.slotCount) return;
    this.fillZeroVectors(slot, slot + 1);
  }

  /**
   * Int8 dot products of the quantised query with slots 0..size-1. Without
   * `out` the result is a view of wasm memory (no copy), valid only until the
   * next call to set, clear or scan on this instance.
   */
  scan(query: Float32Array, out?: Int32Array): Int32Array {
    const scores = runKernelScan(this.kernel, this.prepareScan(query));
    if (out === undefined) return scores;
    if (out.length < this.slotCount) throw new RangeError(`Int8VectorScan.scan: out holds ${out.length} scores, need ${this.slotCount}`);
    out.set(scores);
    return out.subarray(0, this.slotCount);
  }

  /**
   * The k live slots most similar to the query, best first; ties go to the
   * smaller slot. `isLive` is consulted only for slots that would enter the
   * top k, and must not modify this scanner.
   */
  topK(query: Float32Array, k: number, isLive: (slot: number) => boolean): ScoredSlot[] {
    return scanTopSlots(this.kernel, this.prepareScan(query), k, isLive).map(({ slot, score }) => ({ slot, score: this.similarity(score) }));
  }

  /** Approximate cosine similarity of an int score. */
  similarity(score: number): number {
    return score / (this.scale * this.scale);
  }

  /** The memory holding query, vectors and scores; shared, so another thread can run `prepareScan`'s scan. */
  get memory(): WasmMemory {
    return this.kernel.memory;
  }

  /**
   * Quantises the query into memory and returns the kernel's arguments for
   * scanning every slot. Whoever runs it must do so before this scanner's
   * next set, clear or scan, which may move the score area or the query.
   */
  prepareScan(query: Float32Array): KernelScan {
    this.checkVector(query, "query");
    quantizeInto(query, this.view(), QUERY_OFFSET, this.scale);
    return {
      queryPtr: QUERY_OFFSET,
      wideQueryPtr: this.wideQueryOffset(),
      basePtr: this.slotOffset(0),
      count: this.slotCount,
      dims: this.dims,
      outPtr: this.outputOffset(),
      candidatesPtr: this.outputOffset() + this.capacity * 4,
    };
  }

  private checkSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot > 0x7fff_ffff) throw new RangeError(`Int8VectorScan: slot must be a non-negative integer, got ${slot}`);
  }

  private checkVector(vector: Float32Array, name: string): void {
    if (vector.length !== this.dims) throw new RangeError(`Int8VectorScan: ${name} has ${vector.length} dims, expected ${this.dims}`);
  }

  private wideQueryOffset(): number {
    return QUERY_OFFSET + this.dims;
  }

  private slotOffset(slot: number): number {
    return this.wideQueryOffset() + 2 * this.dims + slot * this.dims;
  }

  private outputOffset(): number {
    return this.slotOffset(this.capacity);
  }

  /** Growing memory gives it a new buffer object, so views are re-derived lazily. */
  private view(): Int8Array {
    const buffer = this.kernel.memory.buffer;
    if (this.bytes.buffer !== buffer) this.bytes = new Int8Array(buffer);
    return this.bytes;
  }

  /** Doubles capacity (amortised O(1) per set) and grows wasm memory to fit. */
  private ensureCapacity(slots: number): void {
    if (slots <= this.capacity) return;
    const capacity = Math.max(slots, this.capacity * 2, MIN_CAPACITY);
    const requiredBytes = this.slotOffset(capacity) + capacity * 8; // scores, then candidates
    const memory = this.kernel.memory;
    if (memory.buffer.byteLength < requiredBytes) memory.grow(Math.ceil((requiredBytes - memory.buffer.byteLength) / PAGE_BYTES));
    // The old score area and fresh pages become vector slots: unset slots must score 0.
    this.fillZeroVectors(this.capacity, capacity);
    this.capacity = capacity;
  }

  /** Stores zero vectors in slots [from, to); all-zero bytes would not be one in the stored format. */
  private fillZeroVectors(from: number, to: number): void {
    const start = this.slotOffset(from);
    // Slot offsets are multiples of 16, so the uint16 view is aligned.
    new Uint16Array(this.kernel.memory.buffer, start, (this.slotOffset(to) - start) / 2).fill(STORED_ZERO_PAIR);
  }
}

/** Bounded min-heap of (slot, int score); the root is the worst kept entry. */
class SlotMinHeap {
  private readonly slots: Int32Array;
  private readonly scores: Int32Array;
  private count = 0;

  constructor(private readonly limit: number) {
    this.slots = new Int32Array(limit);
    this.scores = new Int32Array(limit);
  }

  isFull(): boolean {
    return this.count === this.limit;
  }

  minScore(): number {
    return this.scores[0] as number;
  }

  /** Adds the entry, evicting the worst one when full; callers pre-check that it beats the root. */
  offer(slot: number, score: number): void {
    if (this.count < this.limit) {
      this.place(this.count, slot, score);
      this.siftUp(this.count++);
      return;
    }
    this.place(0, slot, score);
    this.siftDown(0);
  }

  sortedBestFirst(): ScoredSlot[] {
    const result: ScoredSlot[] = [];
    for (let index = 0; index < this.count; index++) result.push({ slot: this.slots[index] as number, score: this.scores[index] as number });
    return result.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }

  /** "a is worse than b": lower score, or equal score and larger slot. */
  private worse(a: number, b: number): boolean {
    const scoreA = this.scores[a] as number;
    const scoreB = this.scores[b] as number;
    return scoreA < scoreB || (scoreA === scoreB && (this.slots[a] as number) > (this.slots[b] as number));
  }

  private siftUp(index: number): void {
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.worse(index, parent)) return;
      this.swap(index, parent);
      index = parent;
    }
  }

  private siftDown(index: number): void {
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let worst = index;
      if (left < this.count && this.worse(left, worst)) worst = left;
      if (right < this.count && this.worse(right, worst)) worst = right;
      if (worst === index) return;
      this.swap(index, worst);
      index = worst;
    }
  }

  private place(index: number, slot: number, score: number): void {
    this.slots[index] = slot;
    this.scores[index] = score;
  }

  private swap(a: number, b: number): void {
    const slot = this.slots[a] as number;
    const score = this.scores[a] as number;
    this.place(a, this.slots[b] as number, this.scores[b] as number);
    this.place(b, slot, score);
  }
}
