import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { completedBlocksLength } from "../../../src/tui/markdown/completed-blocks.js";

const cutOf = (text: string) => text.slice(0, completedBlocksLength(text));

describe("where streamed markdown can be cut", () => {
  it("after a finished block, once the next one has begun", () => {
    expect(cutOf("# Title")).toBe("");
    expect(cutOf("# Title\n\n")).toBe("");
    expect(cutOf("# Title\n\nFirst par")).toBe("# Title\n\n");
    expect(cutOf("One.\nStill one.\n\nTwo.\n\nThr")).toBe("One.\nStill one.\n\nTwo.\n\n");
  });

  it("never inside a fenced code block, whatever blank lines it holds", () => {
    const open = "Here:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n";
    expect(cutOf(open)).toBe("Here:\n\n");
    expect(cutOf(`${open}\`\`\`\n\nAfter`)).toBe(`${open}\`\`\`\n\n`);
    // A longer fence closes only with at least as many markers; ~~~ fences too.
    expect(cutOf("````md\n```\n\ninner\n```\n\nstill inside")).toBe("");
    expect(cutOf("~~~\na\n\nb\n~~~\n\nnext")).toBe("~~~\na\n\nb\n~~~\n\n");
  });

  it("is always a prefix that ends after a blank line, and the rest starts a block", () => {
    const piece = fc.constantFrom("text", "**bold**", "\n", "\n\n", "```", "```ts", "~~~", "- item", "| a | b |", "  ", "# h");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        const cut = completedBlocksLength(text);
        expect(cut).toBeGreaterThanOrEqual(0);
        expect(cut).toBeLessThanOrEqual(text.length);
        if (cut > 0) {
          expect(text.slice(0, cut)).toMatch(/\n[ \t]*\n$/);
          expect(text.slice(cut).trim()).not.toBe("");
        }
        // Streaming more text never moves a cut back.
        expect(completedBlocksLength(`${text}\n\nmore`)).toBeGreaterThanOrEqual(cut);
      }),
      { seed: 16, numRuns: 500 },
    );
  });
});
