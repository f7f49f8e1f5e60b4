/**
 * A file's trigram sketch: a small bit set of the three-byte sequences its
 * bytes hold (ASCII letters folded to lower case), one hashed bit each.
 * grep asks it whether a file can hold a literal without reading the file:
 * a file holding the literal holds every one of its trigrams, so each of
 * their bits is set; a file that lacks one is ruled out. A set bit may be
 * another trigram's (a false positive, read and found not to match), never
 * the reverse, so the answer is only ever "maybe" or "no".
 *
 * The term index rules out little for a camelCase literal (`AnyJsObjectMember`
 * guarantees only the terms `js` and `object`, which most files of a
 * JavaScript toolchain hold) and nothing for one a word may continue
 * (`syntax_list`, or `deprecated` in any case); its trigrams rule out nearly
 * every file that lacks it, as code search engines use them.
 *
 * Sized at about two bits per distinct trigram (a power of two), about 39 %
 * of the bits are set, so a literal of 15 trigrams passes a file that lacks
 * it with a probability near 0.39^15: one file in a million.
 */

/** Bits per distinct trigram, before rounding up to a power of two. */
const BITS_PER_TRIGRAM = 2;
const MIN_SKETCH_BITS = 64;
/** A file with more distinct trigrams than this shares bits (it is large: more of its bits are set, and it is read more often). */
const MAX_SKETCH_BITS = 1 << 18;

/** ASCII upper case to lower case; every other byte as it is. */
const FOLD = new Uint8Array(256).map((_, byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte));

/** The widest sketch's bit (`MAX_SKETCH_BITS`) of each trigram seen in the file being sketched; cleared after each file. */
let seen: Uint8Array | undefined;
/** The bits noted in `seen`, in order: at most one per byte, and at most one per bit of the widest sketch. */
let distinct = new Int32Array(1 << 16);
const MAX_SKETCH_SHIFT = 32 - Math.log2(MAX_SKETCH_BITS);
/** Fibonacci hashing: the product's leading bits spread trigrams that differ in one byte. */
const HASH_MULTIPLIER = 0x9e3779b1;

/**
 * The sketch of a file's bytes (see the module comment). Each trigram's bit
 * in the widest sketch is noted once (32 KB of scratch, cleared bit by bit
 * after); the count of those sizes the sketch, and a narrower sketch's bit
 * is the wider one's leading bits. About 3–5 ns a byte: ≈ 0.5 s of CPU for
 * the 103 MB of a 28k-file monorepo, shared by the index's threads.
 */
export function trigramSketch(bytes: Uint8Array): Uint8Array {
  // Locals, not the module's variables, in the loop: V8 need not reload them on every byte.
  seen ??= new Uint8Array(MAX_SKETCH_BITS / 8);
  const scratch = seen;
  const fold = FOLD;
  const most = Math.min(MAX_SKETCH_BITS, bytes.length);
  if (distinct.length < most) distinct = new Int32Array(most);
  const noted = distinct;
  let count = 0;
  let trigram = 0;
  for (let index = 0; index < bytes.length; index++) {
    trigram = ((trigram << 8) | (fold[bytes[index] as number] as number)) & 0xffffff;
    if (index < 2) continue; // not yet three bytes
    const bit = bitOf(trigram, MAX_SKETCH_SHIFT);
    const mask = 1 << (bit & 7);
    const old = scratch[bit >>> 3] as number;
    if ((old & mask) !== 0) continue;
    scratch[bit >>> 3] = old | mask;
    noted[count++] = bit;
  }
  const size = sketchBits(count);
  const narrowing = Math.log2(MAX_SKETCH_BITS / size);
  const sketch = new Uint8Array(size / 8);
  for (let index = 0; index < count; index++) {
    const bit = noted[index] as number;
    scratch[bit >>> 3] = 0;
    setBit(sketch, bit >>> narrowing);
  }
  return sketch;
}

/**
 * A search's literals as trigrams to look up in sketches: for each
 * alternative of the pattern, every trigram of the literal runs a line
 * matching it holds.
 */
export class TrigramProbe {
  private constructor(private readonly alternatives: ReadonlyArray<readonly number[]>) {}

  /**
   * The probe of a pattern's literal runs per alternative, or undefined when
   * some alternative holds no trigram (it rules out no file). Case-
   * insensitively only trigrams of ASCII bytes are kept: a character above
   * 127 folds to other bytes (é and É), an ASCII letter only to its other
   * case (no `u` flag: ECMAScript's Canonicalize never maps above 127 to
   * below), and the sketch folds those.
   */
  static of(alternatives: ReadonlyArray<readonly string[]>, ignoreCase: boolean): TrigramProbe | undefined {
    const probes: number[][] = [];
    for (const runs of alternatives) {
      const trigrams = new Set<number>();
      for (const run of runs) {
        const bytes = Buffer.from(run, "utf8");
        for (let index = 2; index < bytes.length; index++) {
          const [a, b, c] = [bytes[index - 2] as number, bytes[index - 1] as number, bytes[index] as number];
          if (ignoreCase && (a | b | c) >= 0x80) continue;
          trigrams.add(((FOLD[a] as number) << 16) | ((FOLD[b] as number) << 8) | (FOLD[c] as number));
        }
      }
      if (trigrams.size === 0) return undefined;
      probes.push([...trigrams]);
    }
    return probes.length > 0 ? new TrigramProbe(probes) : undefined;
  }

  /** Whether a file with this sketch may hold a match: some alternative has all its trigrams' bits set. */
  mayHold(sketch: Uint8Array): boolean {
    const bytes = sketch.length;
    if (bytes === 0 || (bytes & (bytes - 1)) !== 0) return true;
    // 2^k bits: the top k bits of the hash, k = log2(bytes) + 3 (loops, not closures: called for every file of a listing).
    const shift = 32 - (31 - Math.clz32(bytes) + 3);
    for (const trigrams of this.alternatives) {
      let all = true;
      for (const trigram of trigrams) {
        if (hasBit(sketch, bitOf(trigram, shift))) continue;
        all = false;
        break;
      }
      if (all) return true;
    }
    return false;
  }
}

function sketchBits(distinctTrigrams: number): number {
  let size = MIN_SKETCH_BITS;
  while (size < distinctTrigrams * BITS_PER_TRIGRAM && size < MAX_SKETCH_BITS) size *= 2;
  return size;
}

/** The trigram's bit in a sketch of 2^(32 - shift) bits: the top bits of a multiplicative hash. */
function bitOf(trigram: number, shift: number): number {
  return Math.imul(trigram, HASH_MULTIPLIER) >>> shift;
}

function setBit(sketch: Uint8Array, bit: number): void {
  sketch[bit >>> 3] = (sketch[bit >>> 3] as number) | (1 << (bit & 7));
}

function hasBit(sketch: Uint8Array, bit: number): boolean {
  return ((sketch[bit >>> 3] as number) & (1 << (bit & 7))) !== 0;
}
