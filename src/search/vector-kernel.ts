import { VECTOR_KERNEL_WASM_BASE64 } from "./vector-kernel-wasm.js";

/**
 * The binding of the WebAssembly vector kernel (vector-kernel.wat): compiled
 * once per thread, instantiated over a shared memory, and called with the
 * pointers of a prepared scan. A scan can also be split into blocks that two
 * threads claim one at a time (`scanUnclaimedBlocks`), so the thread that
 * asked for it can help once its own work is done.
 */

/** A shared WebAssembly memory: its buffer is a SharedArrayBuffer, and it can be posted to a worker. */
export interface WasmMemory {
  readonly buffer: ArrayBufferLike;
  grow(deltaPages: number): number;
}
export interface KernelExports {
  readonly memory: WasmMemory;
  scan(pairsPtr: number, pairCount: number, basePtr: number, count: number, dims: number, outPtr: number): void;
  collect(scoresPtr: number, count: number, threshold: number, dstPtr: number): number;
}
/** The slice of the WebAssembly JS API used here; the ES2023 lib has no typings for it. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
  Memory: new (descriptor: { initial: number; maximum: number; shared: boolean }) => WasmMemory;
}

/** The kernel's arguments for one scan of every slot (see vector-kernel.wat). */
export interface KernelScan {
  /** The query's table: one 32-byte entry per pair of dimensions it uses. */
  pairsPtr: number;
  pairCount: number;
  basePtr: number;
  count: number;
  dims: number;
  /** Room for `count` int32 scores, rounded up to a whole tile of 1,024. */
  outPtr: number;
  /** Room for `count` int32 slot numbers: the candidates of top-k selection. */
  candidatesPtr: number;
}

/** The kernel's declared maximum (2 GiB): a shared memory reserves it up front, as address space only. */
const MAX_PAGES = 32_768;

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
  kernel.scan(scan.pairsPtr, scan.pairCount, scan.basePtr, scan.count, scan.dims, scan.outPtr);
  return new Int32Array(kernel.memory.buffer, scan.outPtr, scan.count);
}

/** Slots per block of a shared scan: 1 MiB of 256-d vectors (four tiles of 1,024). */
export const SCAN_BLOCK_SLOTS = 4_096;

const NEXT_BLOCK = 0;
const DONE_BLOCKS = 1;

/**
 * Progress of a shared scan, in shared memory: the next block to claim and
 * how many are done. Reset it (`resetScanProgress`) before each scan.
 */
export function createScanProgress(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

export function resetScanProgress(progress: Int32Array): void {
  Atomics.store(progress, NEXT_BLOCK, 0);
  Atomics.store(progress, DONE_BLOCKS, 0);
}

function blocksOf(scan: KernelScan): number {
  return Math.ceil(scan.count / SCAN_BLOCK_SLOTS);
}

/** Claims the next unscanned block, or returns undefined when every block is taken. */
export function claimBlock(scan: KernelScan, progress: Int32Array): number | undefined {
  const block = Atomics.add(progress, NEXT_BLOCK, 1);
  return block < blocksOf(scan) ? block : undefined;
}

/**
 * Scores a claimed block with this thread's kernel, then counts it done (the
 * atomic add publishes its scores to whoever reads the count). The query's
 * table is only read, so both threads share it.
 */
export function scanBlock(kernel: KernelExports, scan: KernelScan, block: number, progress: Int32Array): void {
  const first = block * SCAN_BLOCK_SLOTS;
  const count = Math.min(SCAN_BLOCK_SLOTS, scan.count - first);
  kernel.scan(scan.pairsPtr, scan.pairCount, scan.basePtr + first * scan.dims, count, scan.dims, scan.outPtr + first * 4);
  Atomics.add(progress, DONE_BLOCKS, 1);
  Atomics.notify(progress, DONE_BLOCKS);
}

/** Claims and scans blocks until none is left; returns how many it scanned. */
export function scanUnclaimedBlocks(kernel: KernelExports, scan: KernelScan, progress: Int32Array): number {
  let scanned = 0;
  for (let block = claimBlock(scan, progress); block !== undefined; block = claimBlock(scan, progress)) {
    scanBlock(kernel, scan, block, progress);
    scanned++;
  }
  return scanned;
}

/** Blocks until every block of the scan is done (a worker thread may wait; the scores are then complete). */
export function waitForAllBlocks(scan: KernelScan, progress: Int32Array): void {
  const blocks = blocksOf(scan);
  for (;;) {
    const done = Atomics.load(progress, DONE_BLOCKS);
    if (done >= blocks) return;
    Atomics.wait(progress, DONE_BLOCKS, done);
  }
}
