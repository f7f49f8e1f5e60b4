import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BoundedLineReader } from "../../../src/app/warm-index/line-reader.js";

function reader(maxLineBytes: number) {
  const lines: string[] = [];
  let overflows = 0;
  const lineReader = new BoundedLineReader(maxLineBytes, { onLine: (line) => lines.push(line), onOverflow: () => overflows++ });
  return { lineReader, lines, overflows: () => overflows };
}

describe("BoundedLineReader", () => {
  it("gives the lines however the bytes are cut into chunks, multi-byte characters and CRLF included", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme" }).map((text) => text.replace(/[\r\n]/g, "")),
          { maxLength: 8 },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (lines, cuts, crlf) => {
          const bytes = Buffer.from(lines.map((line) => `${line}${crlf ? "\r\n" : "\n"}`).join(""), "utf8");
          const { lineReader, lines: read, overflows } = reader(1 << 20);
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          let start = 0;
          for (const end of [...at, bytes.length]) {
            lineReader.push(bytes.subarray(start, end));
            start = end;
          }
          expect(read).toEqual(lines);
          expect(overflows()).toBe(0);
        },
      ),
    );
  });

  it("takes a line of exactly the bound, and stops at a longer one before its end arrives, ignoring all that follows", () => {
    const { lineReader, lines, overflows } = reader(8);
    lineReader.push(Buffer.from("12345678\n1234"));
    expect(lines).toEqual(["12345678"]);
    lineReader.push(Buffer.from("56"));
    expect(overflows()).toBe(0);
    lineReader.push(Buffer.from("789"));
    expect(overflows()).toBe(1);
    expect(lineReader.stopped).toBe(true);
    lineReader.push(Buffer.from("\nshort\n"));
    expect(lines).toEqual(["12345678"]);
    expect(overflows()).toBe(1);
  });
});
