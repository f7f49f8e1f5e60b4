// Characters beyond ASCII that a given string-width counts as one column each
// and that never join a neighbour into one grapheme cluster: a string made
// only of them is as wide as it is long. Ink measures every text node with
// string-width, whose only shortcut is printable ASCII; anything else goes
// through Intl.Segmenter and regular expressions over Unicode properties
// (RGI_Emoji, Default_Ignorable_Code_Point) that V8 compiles on first use and
// again when it tiers them up. The TUI's own frame is full of such
// characters (the box, `❯`, `·`, `—`, `✻`), so the first frame paid those
// compilations on the way to the prompt. scripts/bundle.mjs widens the
// shortcut with the class built here, from the very copy of string-width it
// bundles, so the answer cannot differ from the slow path's.

/**
 * The blocks searched: the Latin ones, punctuation, arrows, mathematical and
 * technical signs, box drawing, shapes and dingbats, where the TUI's own
 * marks come from. Code points outside them take string-width's own path.
 */
const SEARCHED_BLOCKS = [
  [0x00a0, 0x02ff],
  [0x2010, 0x2bff],
];

/**
 * Marks, joiners, variation selectors, format and control characters join
 * or vanish; unassigned code points may become anything. None is taken.
 */
const JOINS_OR_VANISHES = /[\p{M}\p{Cc}\p{Cf}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Emoji_Modifier}]/u;

/** The code points of the searched blocks that `stringWidth` measures one column wide and that stand alone. */
export function narrowCodePoints(stringWidth) {
  const segmenter = new Intl.Segmenter();
  const narrow = [];
  for (const [first, last] of SEARCHED_BLOCKS) {
    for (let codePoint = first; codePoint <= last; codePoint++) {
      const character = String.fromCodePoint(codePoint);
      if (JOINS_OR_VANISHES.test(character) || stringWidth(character) !== 1) continue;
      // Two in a row stay two clusters, as every pair of these does once none joins or extends.
      if ([...segmenter.segment(character + character)].length !== 2) continue;
      narrow.push(codePoint);
    }
  }
  return narrow;
}

/** A regular expression source, `^[…]*$`, for printable ASCII and `codePoints`, runs written as ranges. */
export function narrowTextPattern(codePoints) {
  const ranges = [[0x20, 0x7e]];
  for (const codePoint of codePoints) {
    const last = ranges.at(-1);
    if (last && codePoint === last[1] + 1) last[1] = codePoint;
    else ranges.push([codePoint, codePoint]);
  }
  const hex = (codePoint) => `\\u${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
  const parts = ranges.map(([first, last]) => (first === last ? hex(first) : `${hex(first)}-${hex(last)}`));
  return `^[${parts.join("")}]*$`;
}
