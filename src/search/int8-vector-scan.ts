import { scanTopSlots } from "./top-slots.js";
import {
  createScanProgress,
  instantiateKernel,
  resetScanProgress,
  runKernelScan,
  scanUnclaimedBlocks,
  type KernelExports,
  type KernelScan,
  type WasmMemory,
} from "./vector-kernel.js";

/**
 * Exact brute-force similarity over many int8-quantised unit vectors, scored
 * by a WebAssembly SIMD kernel (src/search/vector-kernel.wat). The vectors
 * are kept by pairs of dimensions, so a scan reads only the dimensions the
 * query uses: a few dozen of 256 for a short query of the built-in embedder,
 * which makes a scan of 525k vectors cost a few milliseconds and keeps it
 * exact (an approximate first pass by sign bits recalled a third of the
 * exact top 10 on these vectors; docs/BENCHMARKS.md, "Scale to 250k files").
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

/** What another thread needs to take over a scanner it filled: its memory and where the vectors end. */
export interface Int8VectorScanState {
  memory: WasmMemory;
  dims: number;
  scale: number;
  capacity: number;
  slotCount: number;
}

export interface ScoredSlot {
  slot: number;
  /** Approximate cosine similarity: int8 dot product / scale². */
  score: number;
}

const PAGE_BYTES = 65_536;
const MIN_CAPACITY = 1_024;
const QUERY_OFFSET = 0;
/** Vectors per tile of the stored layout: the kernel's (vector-kernel.wat). */
const TILE_SLOTS = 1_024;
/** Bytes of one entry of the query's table: its pair's components as i16 × 4, the pair's offset in a tile, padding. */
const PAIR_ENTRY_BYTES = 32;

function quantizeInto(vector: Float32Array, target: Int8Array, offset: number, scale: number): void {
  for (let index = 0; index < vector.length; index++) {
    const scaled = Math.round((vector[index] as number) * scale);
    // Clamp to ±127 (not -128) so the int8 range stays symmetric.
    target[offset + index] = Math.min(127, Math.max(-127, scaled));
  }
}

/**
 * Memory layout: [query table: dims / 2 entries of PAIR_ENTRY_BYTES]
 * [vectors: capacity × dims bytes, in tiles][scores: capacity × int32][candidates: capacity × int32].
 * A tile holds 1,024 vectors by pairs of dimensions: pair j's run is the
 * tile's components 2j and 2j+1, vector by vector (so a vector's pair j sits
 * at its tile + 2,048 j + 2 × its place in the tile). The query table lists
 * the pairs the query uses (vector-kernel.wat), and a scan reads only their
 * runs. The score area sits
 * after the vectors so growth never moves stored vectors; it is scratch, and
 * is zeroed when new vector slots take over its bytes (as are the candidates
 * after it). Capacity is a whole number of tiles.
 */
export class Int8VectorScan {
  readonly dims: number;
  readonly scale: number;
  private readonly kernel: KernelExports;
  private bytes: Int8Array;
  /** A vector or query being quantised, before it is laid out. */
  private readonly quantized: Int8Array;
  private capacity = 0;
  private slotCount = 0;
  /**
   * Progress of the prepared scan's blocks, shared with the thread that runs
   * it (`scanUnclaimedBlocks`); `prepareScan` resets it.
   */
  readonly progress = createScanProgress();

  constructor(dims: number, options: Int8VectorScanOptions = {}, memory?: WasmMemory) {
    if (!Number.isInteger(dims) || dims <= 0 || dims % 16 !== 0) {
      throw new RangeError(`Int8VectorScan: dims must be a positive multiple of 16 (one SIMD lane group), got ${dims}`);
    }
    const scale = options.scale ?? DEFAULT_INT8_SCALE;
    if (!Number.isFinite(scale) || scale <= 0) throw new RangeError(`Int8VectorScan: scale must be a positive finite number, got ${scale}`);
    this.dims = dims;
    this.scale = scale;
    this.quantized = new Int8Array(dims);
    this.kernel = instantiateKernel(memory);
    this.bytes = new Int8Array(this.kernel.memory.buffer);
  }

  /** This scanner as another thread can take it over (`restore`); this one must not be used after. */
  get state(): Int8VectorScanState {
    return { memory: this.kernel.memory, dims: this.dims, scale: this.scale, capacity: this.capacity, slotCount: this.slotCount };
  }

  /** A scanner over the memory another thread filled (a load off the thread that draws the screen). */
  static restore(state: Int8VectorScanState): Int8VectorScan {
    const scan = new Int8VectorScan(state.dims, { scale: state.scale }, state.memory);
    scan.capacity = state.capacity;
    scan.slotCount = state.slotCount;
    return scan;
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
    quantizeInto(vector, this.quantized, 0, this.scale);
    const stored = this.view();
    const offset = this.slotOffset(slot);
    for (let index = 0; index < this.dims; index += 2) {
      // Pair index/2 of this vector: 64 bytes per pair in the tile, 2 per vector.
      const at = offset + index * TILE_SLOTS;
      stored[at] = this.quantized[index] as number;
      stored[at + 1] = this.quantized[index + 1] as number;
    }
    if (slot >= this.slotCount) this.slotCount = slot + 1;
  }

  /** Makes room for `slots` slots at once (a load that knows how many it will set). */
  reserve(slots: number): void {
    this.ensureCapacity(slots);
  }

  /** Zeroes a slot: it then scores 0 against everything. */
  clear(slot: number): void {
    this.checkSlot(slot);
    if (slot >= this.slotCount) return;
    const stored = this.view();
    const offset = this.slotOffset(slot);
    for (let index = 0; index < this.dims; index += 2) {
      stored[offset + index * TILE_SLOTS] = 0;
      stored[offset + index * TILE_SLOTS + 1] = 0;
    }
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
   * The k live slots most similar to the query, best first, and every
   * other live slot that ties the k-th (see `topSlots`). `isLive` is
   * consulted only for slots that would enter the result, and must not
   * modify this scanner.
   */
  topK(query: Float32Array, k: number, isLive: (slot: number) => boolean): ScoredSlot[] {
    return scanTopSlots(this.kernel, this.prepareScan(query), k, isLive).map(({ slot, score }) => ({
      slot,
      score: this.similarity(score),
    }));
  }

  /**
   * The query's similarity to each of these slots, exactly as a scan scores
   * them. Computed here without the kernel: it touches no scratch memory, so
   * it may run while a scan prepared on another thread is in flight.
   */
  similarities(query: Float32Array, slots: readonly number[]): number[] {
    this.checkVector(query, "query");
    const quantized = Int8VectorScan.quantize(query, this.scale);
    // Like the scan, read only the pairs the query uses: each pair of a vector is in another cache line.
    const used: number[] = [];
    for (let index = 0; index < this.dims; index += 2) if (quantized[index] !== 0 || quantized[index + 1] !== 0) used.push(index);
    const stored = this.view();
    return slots.map((slot) => {
      if (slot >= this.slotCount) return 0; // never set: a zero vector
      const offset = this.slotOffset(slot);
      let dot = 0;
      for (const index of used) {
        const at = offset + index * TILE_SLOTS;
        dot += (quantized[index] as number) * (stored[at] as number) + (quantized[index + 1] as number) * (stored[at + 1] as number);
      }
      return this.similarity(dot);
    });
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
   * Quantises the query and writes its table (the pairs of dimensions it
   * uses) into memory, and returns the kernel's arguments for scanning every
   * slot. Whoever runs it must do so before this scanner's next set, clear or
   * scan, which may move the score area or the query.
   */
  prepareScan(query: Float32Array): KernelScan {
    this.checkVector(query, "query");
    const quantized = this.quantized;
    quantizeInto(query, quantized, 0, this.scale);
    const memory = this.kernel.memory.buffer;
    const components = new Int16Array(memory, QUERY_OFFSET, (this.dims / 2) * (PAIR_ENTRY_BYTES / 2));
    const offsets = new Int32Array(memory, QUERY_OFFSET, (this.dims / 2) * (PAIR_ENTRY_BYTES / 4));
    let pairCount = 0;
    for (let index = 0; index < this.dims; index += 2) {
      const even = quantized[index] as number;
      const odd = quantized[index + 1] as number;
      if (even === 0 && odd === 0) continue;
      const entry = pairCount * PAIR_ENTRY_BYTES;
      for (let lane = 0; lane < 8; lane += 2) {
        components[entry / 2 + lane] = even;
        components[entry / 2 + lane + 1] = odd;
      }
      offsets[entry / 4 + 4] = index * TILE_SLOTS;
      pairCount++;
    }
    resetScanProgress(this.progress);
    return {
      pairsPtr: QUERY_OFFSET,
      pairCount,
      basePtr: this.slotOffset(0),
      count: this.slotCount,
      dims: this.dims,
      outPtr: this.outputOffset(),
      candidatesPtr: this.outputOffset() + this.capacity * 4,
    };
  }

  /**
   * Scans, on this thread, the blocks of a prepared scan that the thread
   * running it has not claimed yet; returns how many. The scan thread then
   * ranks the complete scores.
   */
  helpScan(scan: KernelScan): number {
    return scanUnclaimedBlocks(this.kernel, scan, this.progress);
  }

  private checkSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot > 0x7fff_ffff)
      throw new RangeError(`Int8VectorScan: slot must be a non-negative integer, got ${slot}`);
  }

  private checkVector(vector: Float32Array, name: string): void {
    if (vector.length !== this.dims) throw new RangeError(`Int8VectorScan: ${name} has ${vector.length} dims, expected ${this.dims}`);
  }

  /** Where a slot's first pair starts: its tile, then 2 bytes per vector before it in the tile. */
  private slotOffset(slot: number): number {
    const vectors = QUERY_OFFSET + (this.dims / 2) * PAIR_ENTRY_BYTES;
    return vectors + Math.floor(slot / TILE_SLOTS) * TILE_SLOTS * this.dims + (slot % TILE_SLOTS) * 2;
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
    const capacity = Math.ceil(Math.max(slots, this.capacity * 2, MIN_CAPACITY) / TILE_SLOTS) * TILE_SLOTS;
    const requiredBytes = this.slotOffset(capacity) + capacity * 8; // scores, then candidates
    const memory = this.kernel.memory;
    if (memory.buffer.byteLength < requiredBytes) memory.grow(Math.ceil((requiredBytes - memory.buffer.byteLength) / PAGE_BYTES));
    // The old score area and fresh pages become vector slots: unset slots must score 0.
    this.view().fill(0, this.slotOffset(this.capacity), this.slotOffset(capacity));
    this.capacity = capacity;
  }
}
