import { createRequire } from "node:module";
import type { Index } from "flexsearch";
import { TF_BUCKETS, TF_MARK } from "./full-text-document.js";

/**
 * The one place that reaches inside a FlexSearch `Index` (flexsearch 0.8,
 * pinned): its `map` (term → postings by score slot) and its register of
 * document ids, which FlexSearch's own `export` and `import` persist.
 *
 * Documents arrive pre-tokenised: distinct terms separated by spaces, each
 * followed by its frequency-bucket term when it repeats (`parser parser#4
 * lexer`). Going through `Index.add`, FlexSearch split them again, noted each
 * term in a per-document dictionary to skip duplicates and called back for
 * each term's slot: about half of a cold index's FlexSearch time. Here the
 * postings go straight where `Index.add` would put them (a property test
 * compares the exports of both ways), and ranking reads them from there,
 * since FlexSearch's `search` merges the slots and so loses the frequency.
 */

/**
 * One slot's document ids: an array when filed by `addPostings`, a typed
 * array when restored from a snapshot (its bytes, used where they lie).
 */
export type Postings = number[] | Int32Array;

/** A term's postings by frequency slot: 0 once, 1 + i the i-th of `TF_BUCKETS`; empty slots may be missing. */
export type TermSlots = ReadonlyArray<ArrayLike<number> | null | undefined>;

/** What an `Index` built by `createPostingsIndex` keeps (tokenize "strict", no context, no fastupdate register). */
interface IndexInternals {
  map: Map<string, Array<Postings | undefined>>;
  reg: Set<number>;
}

const SLOT_OF_BUCKET = new Map<string, number>(TF_BUCKETS.map((bucket, index) => [String(bucket), index + 1]));
const MARK_CODE = TF_MARK.charCodeAt(0);
const SPACE_CODE = 0x20;

let FlexSearchIndex: typeof Index | undefined;

/**
 * An index whose score slots hold term frequencies: slot 0 once, then one
 * per bucket. `standalone`: the map and register alone, in FlexSearch's
 * layout but without FlexSearch, for an index that is searched once and
 * dropped (a one-off search's few terms): FlexSearch is then never loaded,
 * which was ~3.5 ms of such a search. It is required on first use, not
 * imported, for that reason.
 */
export function createPostingsIndex(options: { standalone?: boolean } = {}): Index {
  if (options.standalone) return { map: new Map(), reg: new Set() } satisfies IndexInternals as unknown as Index;
  FlexSearchIndex ??= (createRequire(import.meta.url)("flexsearch") as typeof import("flexsearch")).Index;
  return new FlexSearchIndex({ tokenize: "strict", resolution: TF_BUCKETS.length + 1, fastupdate: false });
}

/**
 * Files document `id` under each of its terms, in the term's frequency
 * slot, as `Index.add` would. The terms must be distinct (a bucket term
 * follows the term it counts), and `id` must not be in the index yet.
 */
export function addPostings(index: Index, id: number, terms: string): void {
  const { map, reg } = internals(index);
  eachPosting(map, terms, (slots, slot) => {
    let ids = slots[slot];
    // A restored slot is a typed array: it becomes an array the first time it grows.
    if (!Array.isArray(ids)) slots[slot] = ids = ids ? Array.from(ids) : [];
    ids.push(id);
  });
  reg.add(id);
}

/**
 * `addPostings` for several documents, ids ascending: each slot grows once,
 * by a copy, where filing documents one by one first turned a restored
 * slot (a typed array of up to ~70k ids) into an array, 2–3 ms apiece
 * before V8 had compiled anything.
 */
export function addPostingsBatch(index: Index, documents: ReadonlyArray<{ id: number; terms: string }>): void {
  const { map, reg } = internals(index);
  const added = new Map<Array<Postings | undefined>, number[][]>();
  for (const { id, terms } of documents) {
    eachPosting(map, terms, (slots, slot) => {
      let lists = added.get(slots);
      if (!lists) {
        lists = [];
        added.set(slots, lists);
      }
      const list = lists[slot];
      if (list) list.push(id);
      else lists[slot] = [id];
    });
    reg.add(id);
  }
  for (const [slots, lists] of added) {
    lists.forEach((ids, slot) => {
      const existing = slots[slot];
      if (!existing) slots[slot] = ids;
      else if (Array.isArray(existing)) for (const id of ids) existing.push(id);
      else {
        const grown = new Int32Array(existing.length + ids.length);
        grown.set(existing);
        grown.set(ids, existing.length);
        slots[slot] = grown;
      }
    });
  }
}

/** Calls `post` with each term's slots (created when new) and the term's frequency slot in `terms`. */
function eachPosting(map: IndexInternals["map"], terms: string, post: (slots: Array<Postings | undefined>, slot: number) => void): void {
  let term = "";
  let slots: Array<Postings | undefined> | undefined;
  let slot = 0;
  let start = 0;
  for (let end = 0; end <= terms.length; end++) {
    if (end < terms.length && terms.charCodeAt(end) !== SPACE_CODE) continue;
    if (end > start) {
      const word = terms.slice(start, end);
      // A bucket term is the previous term plus `#n`: compare in place before slicing.
      const bucketSlot =
        slots && word.length > term.length + 1 && word.charCodeAt(term.length) === MARK_CODE && word.startsWith(term)
          ? SLOT_OF_BUCKET.get(word.slice(term.length + 1))
          : undefined;
      if (bucketSlot !== undefined) {
        slot = bucketSlot;
      } else {
        if (slots) post(slots, slot);
        term = word;
        slots = map.get(word);
        // The key outlives the document's terms: a slice would keep all of them alive (V8 slices long strings by reference).
        if (!slots) {
          slots = [];
          map.set(ownCopy(word), slots);
        }
        slot = 0;
      }
    }
    start = end + 1;
  }
  if (slots) post(slots, slot);
}

/**
 * A copy of `text` holding only its own characters. V8 makes a slice of 13
 * or more characters a view of the string it was cut from, so a term kept as
 * a key from a document's terms kept every document's terms alive: 22 MB
 * after a cold index of biome. Prefixing flattens into a new string, which
 * the slice then views alone.
 */
export function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}

/** Postings longer than this become typed arrays when compacted: shorter, an array is the smaller of the two. */
const COMPACT_TYPED_MIN = 16;

/**
 * Puts the postings filed by `addPostings` in the form a restored index has:
 * long ones in typed arrays (4 bytes an id, where an array of small integers
 * takes 8 and the room it grew into), short ones in arrays of their exact
 * length; the register, which only FlexSearch's own methods read, is
 * emptied. After a cold index of biome the postings took 109 MB of heap
 * built, 63 MB compacted, about what loading the snapshot gives (60 MB).
 */
export function compactPostings(index: Index): void {
  const { map, reg } = internals(index);
  for (const slots of map.values()) {
    for (let slot = 0; slot < slots.length; slot++) {
      const ids = slots[slot];
      if (!Array.isArray(ids)) continue;
      slots[slot] = ids.length > COMPACT_TYPED_MIN ? Int32Array.from(ids) : ids.slice();
    }
  }
  reg.clear();
}

/**
 * Files restored terms' postings (see `FullTextIndex.restore`) where
 * `addPostings` would have put them; the arrays become the index's own.
 * The register is not filled: only FlexSearch's own `export`, `remove` and
 * `contain` read it, and none is used, while a one-off search would pay
 * for 86k insertions.
 */
export function restorePostings(index: Index, terms: Iterable<readonly [string, Array<Postings | undefined>]>): void {
  const { map } = internals(index);
  for (const [term, slots] of terms) map.set(term, slots);
}

/** Every term with its postings by frequency slot. These are the index's own arrays: never change them. */
export function allTermSlots(index: Index): IterableIterator<[string, TermSlots]> {
  return internals(index).map.entries();
}

/** Every document filed under the term, live or not, by frequency slot. These are the index's own arrays: never change them. */
export function termSlots(index: Index, term: string): TermSlots {
  return internals(index).map.get(term) ?? [];
}

function internals(index: Index): IndexInternals {
  return index as unknown as IndexInternals;
}
