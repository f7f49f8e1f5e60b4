const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Where streamed markdown can be cut: the length of the longest prefix made
 * of finished blocks. A block is finished once a blank line outside a fenced
 * code block follows it and the next block has begun, so the prefix can be
 * rendered (and printed for good) while the rest still streams. 0 when no
 * block is finished yet.
 */
export function completedBlocksLength(text: string): number {
  let fence: { marker: string; length: number } | undefined;
  let afterBlankLine = -1;
  let blockSeen = false;
  let cut = 0;
  let offset = 0;
  for (const line of text.split("\n")) {
    const end = offset + line.length + 1;
    const complete = end <= text.length;
    offset = end;
    if (fence) {
      const closing = FENCE.exec(line);
      const marker = closing?.[1];
      if (complete && marker && marker[0] === fence.marker && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      continue;
    }
    if (line.trim() === "") {
      if (complete && blockSeen) afterBlankLine = end;
      continue;
    }
    blockSeen = true;
    // Text after a blank line: the block before it is finished.
    if (afterBlankLine >= 0) cut = afterBlankLine;
    afterBlankLine = -1;
    const opening = complete ? FENCE.exec(line)?.[1] : undefined;
    if (opening) fence = { marker: opening[0] as string, length: opening.length };
  }
  return cut;
}
