/** Words too common to say what a question is about. */
const FILLER = new Set(
  "the and for are but not you all any can had her was one our out has him his how its may new now see two way who did get let put say she too use what when where which why with this that from have into does they them then than there their these those would could should about again please".split(
    " ",
  ),
);

function topicWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []).filter((word) => !FILLER.has(word)));
}

/**
 * A next prompt that asks what the previous one asked ("where are totals
 * rounded?" then "where exactly are the totals rounded?"): the answer did not
 * serve. Most of the next prompt's topic words (at least three, and at least
 * 70 % of them) were in the previous one.
 */
export function asksTheSame(previous: string, next: string): boolean {
  const before = topicWords(previous);
  const after = topicWords(next);
  if (after.size === 0) return false;
  let shared = 0;
  for (const word of after) if (before.has(word)) shared++;
  return shared >= Math.min(3, before.size) && shared / after.size >= 0.7;
}
