/**
 * The order of paths as SQLite keeps them: text compared as UTF-8 bytes
 * (`BINARY`). UTF-16 code units compare the same way except a surrogate (a
 * character above U+FFFF, four bytes in UTF-8) against U+E000–U+FFFF
 * (three bytes), which the rank below puts after them.
 */
export function compareUtf8(a: string, b: string): number {
  return compareCommonLength(a, b) || a.length - b.length;
}

const SLASH = 0x2f;

/**
 * Two names of one directory's entries in the order their paths' subtrees
 * take in `compareUtf8`: each name as if followed by `/`, so that `foo-bar`
 * (`-` sorts below `/`) comes before `foo`, whose subtree's paths `foo/…`
 * sort after every `foo-bar…`.
 */
export function compareAsDirectories(a: string, b: string): number {
  const differing = compareCommonLength(a, b);
  if (differing !== 0 || a.length === b.length) return differing;
  const length = Math.min(a.length, b.length);
  return a.length < b.length ? SLASH - utf8Rank(b.charCodeAt(length)) : utf8Rank(a.charCodeAt(length)) - SLASH;
}

/** The UTF-8 order of the first code units that differ within the shorter string's length; 0 when one starts the other. */
function compareCommonLength(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return 0;
}

function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
