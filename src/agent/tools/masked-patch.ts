import type { StructuredPatch } from "diff";
import { maskSecrets } from "../../security/secrets.js";

/**
 * The patch with each line replaced by the same line of the file masked whole: a diff's lines
 * masked one by one would show the inside of a private key block whose first line is outside
 * the hunk. The hunks stay as they were, so a change of one secret to another still shows as a
 * change (a line removed, a line added), though both read the same.
 */
export function withSecretsMasked(patch: StructuredPatch, before: string, after: string): StructuredPatch {
  const sides = {
    old: { raw: before.split("\n"), masked: maskSecrets(before).text.split("\n") },
    new: { raw: after.split("\n"), masked: maskSecrets(after).text.split("\n") },
  };
  const hunks = patch.hunks.map((hunk) => {
    let oldIndex = hunk.oldStart - 1;
    let newIndex = hunk.newStart - 1;
    const lines = hunk.lines.map((line) => {
      const sign = line[0];
      if (sign !== " " && sign !== "-" && sign !== "+") return line;
      const side = sign === "+" ? sides.new : sides.old;
      const index = sign === "+" ? newIndex : oldIndex;
      if (sign !== "+") oldIndex++;
      if (sign !== "-") newIndex++;
      const text = line.slice(1);
      // The file's line when the hunk's is that line (it always is); else the line masked on its own.
      return sign + (side.raw[index] === text ? side.masked[index] : maskSecrets(text).text);
    });
    return { ...hunk, lines };
  });
  return { ...patch, hunks };
}
