/**
 * 32-bit FNV-1a (Fowler–Noll–Vo): its offset basis and prime, in one place.
 * Hashes that are stored or compared across runs are made with these values
 * (the postings' buckets, the directory listings' digests, the built-in
 * embedder's trigram buckets), so they must never change. A step is
 * `hash = Math.imul(hash ^ code, FNV_PRIME)`: the loops that hash while they
 * scan (a word's end, a term's end, a listing's names) write it inline
 * rather than call a function per character.
 */
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over a string's UTF-16 code units, as a signed 32-bit integer (`>>> 0` for the unsigned value). */
export function fnv1a(text: string): number {
  let hash = FNV_OFFSET | 0;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash;
}
