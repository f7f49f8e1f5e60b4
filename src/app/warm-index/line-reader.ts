/**
 * Splits a socket's bytes into lines with a bound on a line's length that
 * holds while the line is read: past the bound nothing more is kept and
 * `onOverflow` is called once. (readline keeps a line whole until its end
 * arrives: a peer that never sends one grows the process without limit.)
 */
export class BoundedLineReader {
  /** The line read so far, in pieces copied out of the chunks they came in. */
  private pieces: Buffer[] = [];
  private pendingBytes = 0;
  private overflowed = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly handlers: { onLine(line: string): void; onOverflow(): void },
  ) {}

  /** Whether a line went past the bound: the reader then ignores whatever comes. */
  get stopped(): boolean {
    return this.overflowed;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.overflowed) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      if (this.pendingBytes + piece.length > this.maxLineBytes) return this.overflow();
      if (end === -1) return this.keep(piece);
      this.handlers.onLine(this.takeLine(piece));
      start = end + 1;
    }
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    // A copy: a view would keep the whole chunk it came in alive.
    this.pieces.push(Buffer.from(piece));
    this.pendingBytes += piece.length;
  }

  private takeLine(last: Buffer): string {
    const bytes = this.pieces.length === 0 ? last : Buffer.concat([...this.pieces, last]);
    this.pieces = [];
    this.pendingBytes = 0;
    const line = bytes.toString("utf8");
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  private overflow(): void {
    this.overflowed = true;
    this.pieces = [];
    this.pendingBytes = 0;
    this.handlers.onOverflow();
  }
}
