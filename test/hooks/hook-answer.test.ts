import { describe, expect, it } from "vitest";
import { readHookVerdict } from "../../src/hooks/hook-answer.js";
import type { HookProcessResult } from "../../src/hooks/run-hook-command.js";

const exited = (exitCode: number, stdout = "", stderr = ""): HookProcessResult => ({
  ending: "exit",
  exitCode,
  stdout,
  stderr,
  durationMs: 5,
});

describe("a hook's answer", () => {
  it("exit 0 goes on; exit 2 blocks with stderr as the reason; any other exit is an error that stops nothing", () => {
    expect(readHookVerdict("PreToolUse", exited(0), 60)).toEqual({ outcome: "ok" });
    expect(readHookVerdict("PreToolUse", exited(2, "", "not on main\n"), 60)).toEqual({ outcome: "blocked", message: "not on main" });
    expect(readHookVerdict("PreToolUse", exited(1, "", "jq: not found"), 60)).toEqual({
      outcome: "error",
      message: "exit 1: jq: not found",
    });
  });

  it("exit 2 of an event that cannot block is an error the user sees, not a block", () => {
    expect(readHookVerdict("PreEvict", exited(2, "", "keep it"), 60)).toEqual({
      outcome: "error",
      message: "a PreEvict hook cannot block anything; it said: keep it",
    });
  });

  it("reads Claude Code's JSON: decision and reason, permissionDecision and additionalContext, at the top or in hookSpecificOutput", () => {
    expect(readHookVerdict("Stop", exited(0, '{"decision":"block","reason":"tests fail"}'), 60)).toEqual({
      outcome: "blocked",
      message: "tests fail",
    });
    const deny = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}';
    expect(readHookVerdict("PreToolUse", exited(0, deny), 60)).toEqual({ outcome: "blocked", message: "no" });
    const ask =
      '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check it","additionalContext":"see RULES.md"}}';
    expect(readHookVerdict("PreToolUse", exited(0, ask), 60)).toEqual({
      outcome: "ok",
      permissionDecision: "ask",
      message: "check it",
      additionalContext: "see RULES.md",
    });
    expect(readHookVerdict("PostToolUse", exited(0, '{"additionalContext":"formatted","systemMessage":"ran prettier"}'), 60)).toEqual({
      outcome: "ok",
      additionalContext: "formatted",
      systemMessage: "ran prettier",
    });
  });

  it("plain stdout is context for the prompt's events only; JSON it cannot read is an error", () => {
    expect(readHookVerdict("UserPromptSubmit", exited(0, "today: release day\n"), 60)).toEqual({
      outcome: "ok",
      additionalContext: "today: release day",
    });
    expect(readHookVerdict("PostToolUse", exited(0, "formatted 3 files\n"), 60)).toEqual({ outcome: "ok" });
    expect(readHookVerdict("PreToolUse", exited(0, '{"decision":"maybe"}'), 60).outcome).toBe("error");
  });

  it("masks a secret before the model, the screen or the store sees it", () => {
    const key = `sk-ant-api03-${"a".repeat(90)}`;
    const verdict = readHookVerdict("PreToolUse", exited(2, "", `the key ${key} is not allowed`), 60);
    expect(verdict.outcome).toBe("blocked");
    expect(verdict.message).not.toContain(key);
  });

  it("a timeout, an interruption or a failure to start is an error", () => {
    expect(readHookVerdict("Stop", { ending: "timeout", exitCode: null, stdout: "", stderr: "", durationMs: 1000 }, 1).message).toMatch(
      /timeout of 1 s/,
    );
    expect(
      readHookVerdict("Stop", { ending: "not_started", exitCode: null, stdout: "", stderr: "", durationMs: 0, error: "ENOENT" }, 1),
    ).toEqual({ outcome: "error", message: "could not start: ENOENT" });
  });
});
