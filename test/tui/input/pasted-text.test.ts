import { describe, expect, it } from "vitest";
import * as edit from "../../../src/tui/input/line-editor.js";
import {
  bufferOf,
  collapse,
  deleteBackward,
  EMPTY_BUFFER,
  expand,
  insertPaste,
  lineCount,
  placeholder,
} from "../../../src/tui/input/pasted-text.js";

const lines = (count: number, word = "line") => Array.from({ length: count }, (_, index) => `${word} ${index + 1}`).join("\n");

describe("pasted text", () => {
  it("counts lines, a final line break closing the last one", () => {
    expect(lineCount("")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\nb\n")).toBe(2);
    expect(placeholder(2, "one line")).toBe("[Pasted text #2 +1 line]");
  });

  it("inserts a small paste as it is, and one of more than 10 lines or 1,000 characters as a numbered placeholder", () => {
    expect(insertPaste(EMPTY_BUFFER, lines(10)).editor.text).toBe(lines(10));
    const typed = { ...EMPTY_BUFFER, editor: edit.editorOf("look: ") };
    const once = insertPaste(typed, lines(11).replace(/\n/g, "\r\n"));
    expect(once.editor).toEqual({ text: "look: [Pasted text #1 +11 lines]", cursor: 32 });
    expect(once.pastes.get(1)).toBe(lines(11));
    const twice = insertPaste(once, "x".repeat(1_001));
    expect(twice.editor.text).toBe("look: [Pasted text #1 +11 lines][Pasted text #2 +1 line]");
  });

  it("expands placeholders into the text that is sent, recording where each paste went", () => {
    let buffer = insertPaste(bufferOf("before "), lines(20));
    buffer = { ...buffer, editor: edit.insert(buffer.editor, " after") };
    const entry = expand(buffer);
    expect(entry.text).toBe(`before ${lines(20)} after`);
    expect(entry.pasted).toEqual([[7, 7 + lines(20).length]]);
    // Without pastes, or with a placeholder typed by hand, the text is as it is.
    expect(expand(bufferOf("[Pasted text #9 +3 lines]"))).toEqual({ text: "[Pasted text #9 +3 lines]" });
  });

  it("collapses a history entry back into placeholders, numbered from 1", () => {
    const text = `a ${lines(12)} b ${lines(30, "row")}`;
    const first = 2 + lines(12).length;
    const second = first + 3;
    const buffer = collapse({
      text,
      pasted: [
        [2, first],
        [second, second + lines(30, "row").length],
      ],
    });
    expect(buffer.editor.text).toBe("a [Pasted text #1 +12 lines] b [Pasted text #2 +30 lines]");
    expect(expand(buffer).text).toBe(text);
  });

  it("Backspace right after a placeholder removes it whole; inside one it deletes a character", () => {
    const buffer = insertPaste(bufferOf("see "), lines(15));
    const deleted = deleteBackward(buffer);
    expect(deleted.editor).toEqual({ text: "see ", cursor: 4 });
    expect(deleted.pastes.size).toBe(0);
    const inside = { ...buffer, editor: edit.moveLeft(buffer.editor) };
    expect(deleteBackward(inside).editor.text).toBe("see [Pasted text #1 +15 line]");
  });
});
