import { describe, expect, it } from "vitest";
import { asksTheSame } from "../../src/signals/repeated-question.js";

describe("asksTheSame", () => {
  it("a next prompt whose topic words were nearly all in the previous one asks the same", () => {
    expect(asksTheSame("Where are invoice totals rounded?", "where exactly are the invoice totals rounded")).toBe(true);
    expect(asksTheSame("How are invoice totals rounded before the sales tax?", "Invoice totals: rounded before sales tax, how?")).toBe(
      true,
    );
  });

  it("a new question, a short acknowledgement or a request that shares a word or two does not", () => {
    expect(asksTheSame("Where are invoice totals rounded?", "Now add a test for the tax rates")).toBe(false);
    expect(asksTheSame("Where are invoice totals rounded?", "thanks")).toBe(false);
    expect(asksTheSame("Where are invoice totals rounded?", "Rename the invoice module and update its imports")).toBe(false);
  });
});
