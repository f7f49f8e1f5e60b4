import { describe, expect, it } from "vitest";
import { formatReport, PROBES, selectProbes, type ProbeResult } from "../../scripts/lib/security-probes.mjs";
import { attributesAt, dialogOf } from "../../scripts/lib/security-probes/terminal.mjs";

/**
 * The parts of the security probes that decide held or broken without a
 * process: how a captured screen's attributes are read, where the approval
 * dialog is, which probes --only selects and how the report counts.
 */
const at = (escaped: string, text = "X") => attributesAt(escaped, escaped.indexOf(text));

describe("attributesAt reads the SGR state a capture-pane -e screen is in", () => {
  it("sees concealed text until a reset or SGR 28", () => {
    expect(at("\u001b[8mX").concealed).toBe(true);
    expect(at("\u001b[2m\u001b[8m\u001b[32mX").concealed).toBe(true);
    expect(at("\u001b[8mA\u001b[0mX").concealed).toBe(false);
    expect(at("\u001b[8mA\u001b[28mX").concealed).toBe(false);
    expect(at("\u001b[mX").concealed).toBe(false);
  });

  it("tells a red background from a 256-colour foreground whose number is 41", () => {
    expect(at("\u001b[41mX").background).toBe(41);
    expect(at("\u001b[38;5;41mX").background).toBeUndefined();
    expect(at("\u001b[38;2;1;41;41mX").background).toBeUndefined();
    expect(at("\u001b[48;5;41mX").background).toBe("48;5;41");
    expect(at("\u001b[41mA\u001b[49mX").background).toBeUndefined();
  });
});

describe("dialogOf", () => {
  it("is the last dialog's text from its title to its question, not the transcript above it", () => {
    const screen = "⏺ run_command(rm -rf ./a.txt)\n│ Run a command?\n│ $ npm test\n│ Do you want to proceed?\n";
    expect(dialogOf(screen, "Run a command?")).toBe("Run a command?\n│ $ npm test\n│ ");
    expect(dialogOf(screen, "Write a file?")).toBeUndefined();
  });
});

describe("selectProbes and formatReport", () => {
  it("selects by group and by id, and names the groups when a name is unknown", () => {
    expect(selectProbes(PROBES, "rules").every((probe) => probe.group === "rules")).toBe(true);
    expect(selectProbes(PROBES, "kept-network-off,trust").map((probe) => probe.group)).toContain("kept");
    expect(selectProbes(PROBES, undefined)).toHaveLength(PROBES.length);
    expect(() => selectProbes(PROBES, "rules,nope")).toThrow(/Unknown probe or group: nope\. Groups: sandbox, symlinks/);
  });

  it("has one id per probe", () => {
    expect(new Set(PROBES.map((probe) => probe.id)).size).toBe(PROBES.length);
  });

  it("prints a row per probe (pipes escaped) and counts only held as held", () => {
    const result = (id: string, status: ProbeResult["status"], detail: string): ProbeResult => ({
      id,
      group: "rules",
      title: id,
      status,
      detail,
      ms: 1,
    });
    const report = formatReport([result("a", "held", "fine"), result("b", "broken", "ran `x | y`"), result("c", "skipped", "no tmux")]);
    expect(report).toContain("| b | rules | broken | ran `x \\| y` |");
    expect(report.split("\n").at(-1)).toBe("1 of 3 probes held (1 broken, 1 skipped).");
  });
});
