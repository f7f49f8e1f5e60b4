import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../../src/agent/tools/tool-registry.js";
import { shownApproval } from "../../../src/tui/format/approval-text.js";
import { commandRows, cutToWidth } from "../../../src/tui/format/command-rows.js";

const runCommand = (command: string): ApprovalRequest => ({
  tool: "run_command",
  kind: "execute",
  targets: { command },
  input: { command },
  reason: `Run a command: ${command}`,
});

describe("commandRows", () => {
  it("keeps real line breaks, shows everything else escaped, and counts lines", () => {
    expect(commandRows("echo one\necho two\u001b[1A\r\tthree", 80)).toEqual({
      rows: ["echo one", "echo two\\e[1A\\r\\tthree"],
      lines: 2,
      escaped: true,
    });
    expect(commandRows("npm test", 80)).toEqual({ rows: ["npm test"], lines: 1, escaped: false });
  });

  it("cuts a long line into rows no wider than the dialog, wide characters counted twice", () => {
    const command = `rm -rf ./a;${" ".repeat(30)}npm test`;
    const rows = commandRows(command, 12).rows;
    expect(rows[0]).toBe("rm -rf ./a; ");
    expect(rows.join("")).toBe(command);
    expect(rows.every((row) => stringWidth(row) <= 12)).toBe(true);
    expect(cutToWidth("日本語のコマンド", 5)).toEqual(["日本", "語の", "コマ", "ンド"]);
    expect(cutToWidth("", 5)).toEqual([""]);
  });
});

describe("shownApproval", () => {
  it("flags a command with control characters and one of several lines", () => {
    expect(shownApproval(runCommand("rm -rf x \u001b[2K\rnpm test"), 80).warnings).toEqual([
      "⚠ This command contains control characters, shown escaped (\\e is ESC, \\r a carriage return).",
    ]);
    expect(shownApproval(runCommand("cd src\nnpm test"), 80).warnings).toEqual([
      "⚠ This command has 2 lines: read them all before you answer.",
    ]);
    expect(shownApproval(runCommand("npm test"), 80).warnings).toEqual([]);
  });

  it("shows why it asks, the scope and the description on one line each, escaped", () => {
    const shown = shownApproval({ ...runCommand("a\nb\u0007"), input: { command: "a\nb\u0007", description: "tests\r\u001b[2Kfine" } }, 80);
    // The command is shown whole below, so the reason does not restate it; it says why, when the policy says.
    expect(shown.reason).toBe("");
    expect(shown.scope).toBe("this command");
    const uncovered = { ...runCommand("npm test"), reason: "Run a command: npm test (no allow rule covers npm\u0007)" };
    expect(shownApproval(uncovered, 80).reason).toBe("No allow rule covers npm\\x07.");
    expect(shown.description).toBe("tests\\r\\e[2Kfine");
  });

  it("flags a write whose path or diff holds control characters", () => {
    const write = (path: string, diff: string): ApprovalRequest => ({
      tool: "write_file",
      kind: "write",
      targets: { paths: [path] },
      input: { path },
      reason: `Change ${path}`,
      diff,
    });
    expect(shownApproval(write("src/\u202etxt.sh", "@@ -0,0 +1 @@\n+x\n"), 80).warnings).toHaveLength(1);
    expect(shownApproval(write("src/a.sh", "@@ -0,0 +1 @@\n+x\u001b[8m\n"), 80).warnings).toHaveLength(1);
    expect(shownApproval(write("src/a.sh", "@@ -0,0 +1 @@\n+x\n"), 80).warnings).toEqual([]);
    expect(shownApproval(write("src/\u202etxt.sh", ""), 80).reason).toBe("Change src/\\u202etxt.sh");
    expect(shownApproval(write("src/\u202enew.sh", "--- /dev/null\n+++ b/src/new.sh\n@@ -0,0 +1 @@\n+x\n"), 80).reason).toBe(
      "Create src/\\u202enew.sh",
    );
  });
});
