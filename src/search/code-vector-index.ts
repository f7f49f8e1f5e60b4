import { Vec0LayoutError } from "../store/vec0-blocks.js";
import { keepTiesAtCut, type VectorHit, type VectorStore } from "../store/vector-store.js";
import { Int8VectorScan } from "./int8-vector-scan.js";
import type { SlotScore } from "./top-slots.js";
import type { KernelScan } from "./vector-kernel.js";
import { loadVectorsOnThread } from "./vector-load-thread.js";
import { VectorScanThread } from "./vector-scan-thread.js";

type VectorChanges = { removed: readonly number[]; added: ReadonlyArray<{ id: number; vector: Float32Array }> };

/**
 * The hot tier of the vector signal: an in-memory, int8-quantised copy of
 * the chunk vectors scanned exactly with WebAssembly SIMD (525k × 256-d in
 * ≈3 ms of CPU for a short query of the built-in embedder, which reads only
 * the dimensions it uses; 86k took 23–35 ms in sqlite-vec's scalar scan).
 * sqlite-vec stays the store and answers k-NN until this copy is warm: a
 * process that searches many times (`sylk search -`) calls `warm()`, an
 * interactive session `warmInBackground()` (a load on its own thread would
 * hold the screen for seconds on a large project); a one-off search does
 * not pay for loading. Kept in step with the store like the full-text index: own
 * writes are applied, other processes' commits are reconciled.
 */
export class CodeVectorIndex {
  private scan: Int8VectorScan | undefined;
  private readonly slotOf = new Map<number, number>();
  private idAt = new Int32Array(1024);
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private seenDataVersion = -1;
  /** Why the in-memory copy could not be built; the store answers instead. */
  private unavailable: Error | undefined;
  /** Scans the memory on another thread (`nearestAsync`); started when warm. */
  private thread: VectorScanThread | undefined;
  /** Set while a scan runs on the thread: the memory must not change meanwhile. */
  private scanning: Promise<unknown> | undefined;
  /** Changes that arrived during a scan, applied when it ends. */
  private readonly deferred: VectorChanges[] = [];
  /** The scan on the thread, while it runs: this thread may help with it (`helpScan`). */
  private inFlight: KernelScan | undefined;
  /** Set while another thread loads the copy (`warmInBackground`). */
  private loading: Promise<void> | undefined;
  /** Set once `warmInBackground` is used: later large changes are loaded again on another thread too. */
  private loadsInBackground = false;
  /** Set by `close`: a load on another thread that ends after it is dropped (the store may be closed). */
  private closed = false;
  /** This process's changes committed while another thread loads the copy, applied once it is taken over. */
  private readonly changesWhileLoading: VectorChanges[] = [];

  constructor(
    private readonly store: VectorStore,
    private readonly dataVersion: () => number,
    /** Whether `nearestAsync` may scan on a second thread. */
    private useThread = false,
  ) {}

  get isWarm(): boolean {
    return this.scan !== undefined;
  }

  get size(): number {
    return this.slotOf.size;
  }

  /**
   * Loads every chunk vector; returns how long it took. When the copy cannot
   * be built (dimensions not a multiple of 16, no room for the memory), the
   * index stays cold and searches keep using the store.
   */
  warm(): number {
    // A load on another thread is under way: it will be warm when that ends.
    if (this.scan || this.unavailable || this.loading !== undefined) return 0;
    const started = performance.now();
    try {
      const scan = this.loadByBlocksOrRows();
      // Started now so its start-up is not on a search's path.
      if (this.useThread) this.thread ??= new VectorScanThread(scan.memory, scan.progress);
    } catch (error) {
      this.unavailable = error as Error;
      this.reset();
    }
    return performance.now() - started;
  }

  /**
   * Loads every chunk vector on another thread, so this one (an interactive
   * session's, which draws the screen) only takes the result over: searches
   * use the store until then. Resolves once warm, or cold still when the
   * copy could not be loaded that way (an in-memory database, storage not
   * laid out as expected): the store keeps answering then.
   */
  warmInBackground(): Promise<void> {
    const databasePath = this.store.databasePath;
    if (this.scan || this.unavailable || databasePath === undefined) return Promise.resolve();
    this.loadsInBackground = true;
    this.loading ??= this.takeOverLoad(databasePath).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async takeOverLoad(databasePath: string): Promise<void> {
    // Read before the thread's snapshot: another process's commit after it is reconciled by the next search.
    const version = this.dataVersion();
    let loaded: Awaited<ReturnType<typeof loadVectorsOnThread>>;
    try {
      loaded = await loadVectorsOnThread(databasePath, this.store.dimensions);
    } catch {
      this.changesWhileLoading.length = 0;
      return;
    }
    if (this.scan || this.closed) return; // warmed here meanwhile, or the process is closing its store
    const scan = Int8VectorScan.restore(loaded.state);
    this.idAt = new Int32Array(Math.max(1024, loaded.ids.length));
    this.idAt.set(loaded.ids);
    loaded.ids.forEach((id, slot) => {
      this.slotOf.set(id, slot);
    });
    this.nextSlot = loaded.ids.length;
    this.scan = scan;
    this.seenDataVersion = version;
    // Own commits since the load began; ids are never reused, so one the snapshot already holds is skipped.
    for (const changes of this.changesWhileLoading.splice(0)) this.apply(changes.removed, changes.added);
    if (this.useThread) this.thread ??= new VectorScanThread(scan.memory, scan.progress);
  }

  /** A storage block at a time, or row by row where sqlite-vec's storage is not laid out as expected. */
  private loadByBlocksOrRows(): Int8VectorScan {
    try {
      return this.load((visit) => this.store.visitChunkVectorBlocks(visit));
    } catch (error) {
      if (!(error instanceof Vec0LayoutError)) throw error;
      this.reset();
      return this.load((visit) => {
        for (const { id, vector } of this.store.iterateChunkVectors()) visit(id, vector);
      });
    }
  }

  private load(readVectors: (visit: (id: number, vector: Float32Array) => void) => void): Int8VectorScan {
    const scan = new Int8VectorScan(this.store.dimensions);
    // Sized to what is stored: growing by doubling left a third of the copy's memory unused on a large project.
    scan.reserve(this.store.count("chunk_vectors"));
    this.scan = scan;
    this.seenDataVersion = this.dataVersion();
    readVectors((id, vector) => this.put(id, vector));
    return scan;
  }

  private reset(): void {
    this.scan = undefined;
    this.slotOf.clear();
    this.idAt.fill(0);
    this.freeSlots.length = 0;
    this.nextSlot = 0;
  }

  /** Nearest chunks, exactly like `VectorStore.nearestChunks` (cosine, ties at the cut kept), from memory. */
  nearest(query: Float32Array, k: number): VectorHit[] {
    const scan = this.current();
    if (!scan) return this.store.nearestChunks(query, k);
    const slots = scan.topK(query, k, (slot) => (this.idAt[slot] ?? 0) !== 0);
    return slots.map(({ slot, score }) => ({ id: this.idAt[slot] as number, similarity: score }));
  }

  /**
   * The query's similarity to each of these chunks, as `nearest` scores them;
   * chunks without a vector are left out. Once warm it reads the copy as the
   * last scan saw it (not reconciled with the store first), so its scores
   * agree with that scan's and it never changes memory a scan may be reading.
   */
  similarities(query: Float32Array, chunkIds: readonly number[]): VectorHit[] {
    const scan = this.scan ?? this.current();
    if (!scan) return this.store.chunkSimilarities(query, chunkIds);
    const known = chunkIds.filter((id) => this.slotOf.has(id));
    const scores = scan.similarities(
      query,
      known.map((id) => this.slotOf.get(id) as number),
    );
    return known.map((id, index) => ({ id, similarity: scores[index] as number }));
  }

  /**
   * `nearest`, with the scan on a second thread when there is one, so the
   * caller can score full text meanwhile: the request is posted before this
   * returns its promise.
   */
  async nearestAsync(query: Float32Array, k: number): Promise<VectorHit[]> {
    while (this.scanning !== undefined) await this.scanning;
    const scan = this.current();
    if (!scan) return this.store.nearestChunks(query, k);
    if (this.useThread) this.thread ??= new VectorScanThread(scan.memory, scan.progress);
    if (!this.thread?.isUsable) return this.nearest(query, k);
    // Cleared slots score 0 and may rank; ask for enough to drop them and keep k.
    const prepared = scan.prepareScan(query);
    this.inFlight = prepared;
    const request = this.thread.scan(prepared, k + this.freeSlots.length);
    this.scanning = request.catch(() => undefined);
    let slots: SlotScore[];
    try {
      slots = await request;
    } catch {
      return this.nearest(query, k); // the thread died: scan here
    } finally {
      this.scanning = undefined;
      this.inFlight = undefined;
      for (const changes of this.deferred.splice(0)) this.apply(changes.removed, changes.added);
    }
    const live = slots
      .filter(({ slot }) => (this.idAt[slot] ?? 0) !== 0)
      .map(({ slot, score }) => ({ id: this.idAt[slot] as number, similarity: scan.similarity(score) }));
    return keepTiesAtCut(live, k);
  }

  /**
   * Lends this thread to the scan in flight, if there is one: called once the
   * caller's own work (full-text scoring) is done, it scans the blocks the
   * scan thread has not reached, and the thread then ranks them all.
   */
  helpScan(): void {
    if (this.inFlight && this.scan) this.scan.helpScan(this.inFlight);
  }

  /** Stops the scan thread, if one started; later scans run on this thread, and a load under way on another is dropped. */
  async close(): Promise<void> {
    this.closed = true;
    this.useThread = false;
    const thread = this.thread;
    this.thread = undefined;
    await thread?.close();
  }

  /** This process's own committed changes (ignored until warm: loading reads them then). */
  apply(removed: readonly number[], added: ReadonlyArray<{ id: number; vector: Float32Array }>): void {
    if (!this.scan) {
      if (this.loading !== undefined) this.changesWhileLoading.push({ removed: [...removed], added: [...added] });
      return;
    }
    if (this.scanning !== undefined) {
      this.deferred.push({ removed: [...removed], added: [...added] });
      return;
    }
    if (!this.current()) {
      this.changesWhileLoading.push({ removed: [...removed], added: [...added] });
      return;
    }
    for (const id of removed) this.drop(id);
    for (const { id, vector } of added) this.put(id, vector);
    this.seenDataVersion = this.dataVersion();
  }

  /** Reconciles with the store when another process has committed since we last looked. */
  /**
   * The scanner, reconciled with the store; undefined while a load on
   * another thread is under way (the store answers meanwhile). A copy loaded
   * in the background that another process changed in more than
   * RELOAD_IN_BACKGROUND_ABOVE vectors (a large pass of a `sylk index`
   * process of its own) is loaded again the same way: reading them a row at
   * a time here would hold the thread that draws the screen for seconds.
   */
  private current(): Int8VectorScan | undefined {
    if (!this.scan) this.warm();
    const scan = this.scan;
    if (!scan && this.loading !== undefined) return undefined;
    if (!scan) throw new Error(`The in-memory vector index is unavailable: ${this.unavailable?.message ?? "not loaded"}`);
    const version = this.dataVersion();
    if (version === this.seenDataVersion) return scan;
    this.seenDataVersion = version;
    const live = new Set(this.store.chunkVectorIds());
    if (this.loadsInBackground && countMissing(live, this.slotOf) > RELOAD_IN_BACKGROUND_ABOVE) {
      this.reloadInBackground();
      return undefined;
    }
    for (const id of [...this.slotOf.keys()]) if (!live.has(id)) this.drop(id);
    for (const id of live) {
      if (this.slotOf.has(id)) continue;
      const vector = this.store.chunkVector(id);
      if (vector) this.put(id, vector);
    }
    return scan;
  }

  private reloadInBackground(): void {
    const thread = this.thread;
    this.thread = undefined;
    void thread?.close();
    this.reset();
    void this.warmInBackground();
  }

  private put(id: number, vector: Float32Array): void {
    if (this.slotOf.has(id)) return; // ids are never reused, so the vector is the same
    const slot = this.freeSlots.pop() ?? this.nextSlot++;
    if (slot >= this.idAt.length) {
      const grown = new Int32Array(Math.max(this.idAt.length * 2, slot + 1));
      grown.set(this.idAt);
      this.idAt = grown;
    }
    (this.scan as Int8VectorScan).set(slot, vector);
    this.idAt[slot] = id;
    this.slotOf.set(id, slot);
  }

  private drop(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    (this.scan as Int8VectorScan).clear(slot);
    this.idAt[slot] = 0;
    this.slotOf.delete(id);
    this.freeSlots.push(slot);
  }
}

/**
 * Another process's new vectors above which a copy loaded in the background
 * is loaded again rather than reconciled a row at a time (≈ 30 µs a row).
 */
const RELOAD_IN_BACKGROUND_ABOVE = 1_000;

function countMissing(live: ReadonlySet<number>, held: ReadonlyMap<number, number>): number {
  let missing = 0;
  for (const id of live) if (!held.has(id)) missing++;
  return missing;
}
