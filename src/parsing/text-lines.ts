/**
 * How many lines `text.split("\n")` holds once a trailing newline is not
 * counted as the start of one more (empty) line: the last line number of
 * the file. An empty text is one empty line.
 */
export function lastLineNumber(lines: readonly string[]): number {
  return lines.length > 1 && lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
}
