import { describe, expect, it } from "vitest";
import { describeFix, FIX_WINDOW, judged, AgentLearningEngine } from "../../src/knowledge/agent-learning-engine.js";

const signature = (error: string) => error.replace(/\d+/g, "<n>");

describe("the learning engine", () => {
  it("learns a fix when a later call of the same tool succeeds, with what changed in the input", () => {
    const engine = new AgentLearningEngine(signature, () => false);
    expect(
      engine.observe({
        tool: "edit_file",
        input: { path: "a.ts", old_string: "x " },
        isError: true,
        output: "old_string not found in a.ts line 3",
      }),
    ).toEqual([]);
    expect(engine.observe({ tool: "read_file", input: { path: "a.ts" }, isError: false, output: "..." })).toEqual([]);
    expect(engine.observe({ tool: "edit_file", input: { path: "a.ts", old_string: "x" }, isError: false, output: "ok" })).toEqual([
      {
        kind: "learn",
        tool: "edit_file",
        signature: "old_string not found in a.ts line <n>",
        error: "old_string not found in a.ts line 3",
        failedInput: { path: "a.ts", old_string: "x " },
        workingInput: { path: "a.ts", old_string: "x" },
      },
    ]);
  });

  it("forgets a failure that no success follows within the window: a later success fixes the latest failure, not the first", () => {
    const engine = new AgentLearningEngine(signature, () => false);
    engine.observe({ tool: "grep", input: { pattern: "(" }, isError: true, output: "bad regex" });
    for (let index = 0; index < FIX_WINDOW; index++)
      expect(engine.observe({ tool: "grep", input: { pattern: `(${index}` }, isError: true, output: "bad regex" })).toEqual([]);
    const [learned] = engine.observe({ tool: "grep", input: { pattern: "a" }, isError: false, output: "ok" });
    expect(learned).toMatchObject({ kind: "learn", failedInput: { pattern: `(${FIX_WINDOW - 1}` } });
  });

  it("judges a known error's learning by the next call: a success confirms it, a failure refutes it", () => {
    const engine = new AgentLearningEngine(signature, () => true);
    engine.observe({ tool: "run_command", input: { command: "npm test" }, isError: true, output: "exit 1" });
    expect(engine.observe({ tool: "run_command", input: { command: "pnpm test" }, isError: false, output: "exit 0" })).toEqual([
      { kind: "confirm", tool: "run_command", signature: "exit <n>" },
    ]);
    engine.observe({ tool: "run_command", input: { command: "npm test" }, isError: true, output: "exit 1" });
    expect(engine.observe({ tool: "run_command", input: { command: "npm test" }, isError: true, output: "exit 1" })).toEqual([
      { kind: "refute", tool: "run_command", signature: "exit <n>" },
    ]);
  });

  it("moves confidence by fixed steps within bounds, and describes a fix by the changed fields", () => {
    expect(judged(0.5, "confirm")).toBeCloseTo(0.6, 12);
    expect(judged(0.9, "confirm")).toBe(0.95);
    expect(judged(0.1, "refute")).toBe(0);
    expect(describeFix({ command: "npm test", timeout_ms: 1 }, { command: "pnpm test", timeout_ms: 1 })).toBe(
      'command: "npm test" → "pnpm test"',
    );
    expect(describeFix({ a: 1 }, { a: 1 })).toBe("the same call, again (the failure was transient)");
  });
});
