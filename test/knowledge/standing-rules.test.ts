import { describe, expect, it } from "vitest";
import { STANDING_RULES_TITLE, standingRulesSection, type StandingRule } from "../../src/knowledge/standing-rules.js";

const rule = (id: string, kind: string, content: string): StandingRule => ({ id, kind, content, everyProject: false });

describe("the user's standing rules", () => {
  it("say nothing when the user kept nothing", () => {
    expect(standingRulesSection([])).toBe("");
  });

  it("list rules first, then preferences, definitions and facts, newest first within a kind", () => {
    const section = standingRulesSection([
      rule("1", "fact", "The staging cluster is blue."),
      rule("2", "rule", "never push to main"),
      rule("3", "preference", "I prefer small commits"),
      rule("4", "rule", "always use pnpm"),
    ]);
    const lines = section.split("\n");
    expect(lines[0]).toBe(STANDING_RULES_TITLE);
    expect(lines.slice(2)).toEqual([
      "- never push to main",
      "- always use pnpm",
      "- I prefer small commits",
      "- The staging cluster is blue.",
    ]);
  });

  it("keep the newest within the budget and say how many were left out", () => {
    const many = Array.from({ length: 40 }, (_, index) => rule(String(index), "rule", `rule number ${index} ${"word ".repeat(20)}`));
    const section = standingRulesSection(many, 400);
    const shown = section.split("\n").filter((line) => line.startsWith("- "));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(40);
    expect(shown[0]).toContain("rule number 0 ");
    expect(section).toContain(`(${40 - shown.length} more did not fit; \`/memory list\` shows them all.)`);
  });

  it("keep a note's later lines under its bullet", () => {
    expect(standingRulesSection([rule("1", "rule", "run the tests\nwith --runInBand")])).toContain("- run the tests\n  with --runInBand");
  });
});
