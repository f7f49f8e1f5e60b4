/**
 * A value as one line of JSON that a terminal shows as it is.
 * `JSON.stringify` writes C0 controls as `\u001b` and the like, but leaves
 * DEL, the C1 controls (the 8-bit CSI U+009B among them) and the characters
 * that reorder or hide text (bidi overrides, zero-width characters, tags)
 * raw, and a terminal would act on them when the line is printed there.
 * They are written with JSON's own `\uXXXX` escape too, so a parser reads
 * exactly the same value.
 */
export function terminalJson(value: unknown): string {
  // Outside strings JSON is plain ASCII: every match is inside a string.
  return (JSON.stringify(value) ?? "null").replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (character) =>
    Array.from({ length: character.length }, (_, unit) => `\\u${character.charCodeAt(unit).toString(16).padStart(4, "0")}`).join(""),
  );
}
