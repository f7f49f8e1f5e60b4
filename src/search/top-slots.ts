import { runKernelScan, type KernelExports, type KernelScan } from "./vector-kernel.js";

/**
 * Top-k selection over the kernel's int32 scores: exact, best first, dead
 * slots skipped, and every slot that ties the k-th kept (see `topSlots`).
 */

/** A slot and its int32 kernel score. */
export interface SlotScore {
  slot: number;
  score: number;
}

/**
 * The k best live slots by int score, best first, and every other live slot
 * that ties the k-th; equal scores come smaller slot first. Slots cannot
 * decide a tie: they follow the order chunks were loaded in, which follows
 * the order the index's worker threads finished files, so a cut by slot kept
 * different chunks in two indexes of the same tree. The caller orders ties by
 * what is the same in every index and cuts there.
 *
 * A cut at a score of 0 drops the slots scoring 0 instead: such a slot has no
 * similarity to the query (the built-in embedder's sparse vectors leave most
 * slots at 0 for a query of rare words, and cleared slots score 0), and
 * keeping every tie there would return the whole index.
 *
 * `isLive` is consulted only for slots that would enter the result.
 */
export function topSlots(scores: Int32Array, k: number, isLive: (slot: number) => boolean = () => true): SlotScore[] {
  const limit = Math.min(Math.floor(k), scores.length);
  if (!(limit > 0)) return [];
  const heap = new SlotMinHeap(limit);
  for (let slot = 0; slot < scores.length; slot++) offerSlot(heap, slot, scores[slot] as number, isLive);
  // Fewer live slots than k: all of them, with nothing cut.
  if (!heap.isFull() || limit < Math.floor(k)) return heap.sortedBestFirst();
  return withTiesAtCut(scores, heap.minScore(), scores.length, (index) => index, isLive);
}

/**
 * Every live slot scoring at least `cut` (above 0 when `cut` is 0, see
 * `topSlots`), best first: of the `count` slots `slotAt` names, which must
 * include every slot scoring that much.
 */
function withTiesAtCut(
  scores: Int32Array,
  cut: number,
  count: number,
  slotAt: (index: number) => number,
  isLive: (slot: number) => boolean,
): SlotScore[] {
  const floor = cut === 0 ? 1 : cut;
  const result: SlotScore[] = [];
  for (let index = 0; index < count; index++) {
    const slot = slotAt(index);
    const score = scores[slot] as number;
    if (score >= floor && isLive(slot)) result.push({ slot, score });
  }
  return result.sort((a, b) => b.score - a.score || a.slot - b.slot);
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
): SlotScore[] {
  runKernelScan(kernel, scan);
  return selectTopSlots(kernel, scan, k, isLive);
}

/** `topSlots` over the `count` scores at `outPtr` in the kernel's memory, using `candidatesPtr` as scratch. */
export function selectTopSlots(
  kernel: KernelExports,
  area: Pick<KernelScan, "outPtr" | "count" | "candidatesPtr">,
  k: number,
  isLive: (slot: number) => boolean = () => true,
): SlotScore[] {
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
    // are exact once that many made it in (or when no slot was left out),
    // and so are the ties at the cut, which score at least the threshold too.
    if (heap.isFull() && limit === Math.floor(k))
      return withTiesAtCut(scores, heap.minScore(), found, (index) => candidates[index] as number, isLive);
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

  sortedBestFirst(): SlotScore[] {
    const result: SlotScore[] = [];
    for (let index = 0; index < this.count; index++)
      result.push({ slot: this.slots[index] as number, score: this.scores[index] as number });
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
