import { posix } from "node:path";

/** Splits text into lines without their terminators (`\n` or `\r\n`); a final newline adds no empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** A path as a permission rule sees it: '/'-separated, normalised, without a leading `./`. */
export function targetPath(path: string): string {
  return posix.normalize(path.replace(/\\/g, "/")).replace(/^\.\//, "");
}
