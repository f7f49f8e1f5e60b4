import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { createGetCrossSessionPatternsTool, failingTestNames } from "../../../../src/agent/tools/role-tools/get-cross-session-patterns.js";
import { errorSignature } from "../../../../src/agent/tools/role-tools/recurrence.js";
import { openRoleToolKit, type RoleToolKit } from "./role-tool-kit.js";

let kit: RoleToolKit;
beforeEach(() => {
  kit = openRoleToolKit();
});
afterEach(async () => {
  await kit.close();
});

function tool(available = 10_000) {
  return createGetCrossSessionPatternsTool({ patterns: kit.services.patterns, availableTokens: () => available });
}

async function session(title: string, prompt: string): Promise<SessionRecorder> {
  const recorder = SessionRecorder.start(
    {
      sessions: kit.services.sessions,
      contentStore: kit.services.contentStore,
      identity: { agentId: "engineer-1", agentType: "engineer" },
    },
    { title, provider: "anthropic", model: "claude-fake" },
  );
  await recorder.recordPrompt(prompt, recorder.nextTurn());
  return recorder;
}

async function failedCall(recorder: SessionRecorder, name: string, output: string) {
  const turn = recorder.currentTurn;
  await recorder.recordToolResult(
    turn,
    { type: "tool_use", id: `toolu_${Math.random()}`, name, input: {} },
    { output, isError: true, permission: "allowed" },
    "",
  );
}

function correction(sessionId: string, turn: number) {
  kit.services.handoffs.recordObservation({
    sessionId,
    agentId: "engineer-1",
    agentType: "engineer",
    model: "m",
    turn,
    contextTokens: 1_000,
    quality: 0.6,
    signals: { user_correction: 1 },
  });
}

describe("get_cross_session_patterns", () => {
  it("counts tool errors, corrections, failing tests and files by distinct sessions", async () => {
    const a = await session("A", "Fix the login");
    const b = await session("B", "Fix the signup");
    const c = await session("C", "Tidy up");
    await failedCall(a, "edit_file", "old_string not found in src/auth/login.ts (line 12)");
    await failedCall(a, "edit_file", "old_string not found in src/auth/login.ts (line 40)");
    await failedCall(b, "edit_file", "old_string not found in lib/signup.ts (line 7)");
    await failedCall(c, "run_command", "Command failed with exit code 2");
    await failedCall(a, "read_file", "EACCES: permission denied");
    await a.recordToolResult(
      a.currentTurn,
      { type: "tool_use", id: "ok", name: "edit_file", input: {} },
      { output: "old_string not found in x.ts", isError: false, permission: "allowed" },
      "",
    );

    await a.recordPrompt("No, that's wrong: keep the session cookie", a.nextTurn());
    correction(a.session.id, a.currentTurn);
    await b.recordPrompt("No, that's wrong: keep the session cookie", b.nextTurn());
    correction(b.session.id, b.currentTurn);
    await c.recordPrompt("Not like that, revert the rename", c.nextTurn());
    correction(c.session.id, c.currentTurn);

    for (const id of [a.session.id, b.session.id, c.session.id])
      kit.services.handoffs.recordFileChange(id, { path: "src/auth/session.ts", action: "modify", linesAdded: 3, linesRemoved: 1 });
    kit.services.handoffs.recordFileChange(a.session.id, { path: "src/only-once.ts", action: "create", linesAdded: 3, linesRemoved: 0 });

    const tester = { agentId: "tester-1", agentType: "tester", turnNumber: 1, contentType: "test_result" as const };
    await kit.services.contentStore.indexContent({
      ...tester,
      sessionId: a.session.id,
      content: JSON.stringify({ failing_tests: [{ test_name: "auth > keeps the cookie", error: "expected true" }], test_results: [] }),
    });
    await kit.services.contentStore.indexContent({
      ...tester,
      sessionId: b.session.id,
      content: JSON.stringify({
        failing_tests: [],
        test_results: [
          { test_name: "auth > keeps the cookie", status: "fail" },
          { test_name: "auth > logs in", status: "pass" },
        ],
      }),
    });

    const result = await kit.call(tool(), {});
    const output = result.output;
    expect(output).toMatch(
      /^source: cross-session patterns · 4 results · tokens: \d+ · truncated: false · min_recurrence: 2 sessions · sessions recorded: 3\n/,
    );
    expect(output).toContain("This says what recurs, not why");
    expect(output).toMatch(
      /- 2 sessions · 3 times · last [\d-]+ [\d:]+ · edit_file: old_string not found in <path> \(line <n>\)\n {2}e\.g\. "old_string not found in src\/auth\/login\.ts \(line 12\)" \(session [0-9a-f-]{36}, turn 1\)/,
    );
    expect(output).not.toContain("exit code");
    expect(output).not.toContain("EACCES");
    expect(output).toMatch(
      /- 2 sessions · 2 times · .* · no, that's wrong: keep the session cookie\n {2}"No, that's wrong: keep the session cookie" \(session [0-9a-f-]{36}, turn 2\)/,
    );
    expect(output).not.toContain("revert the rename");
    expect(output).toMatch(/- 2 sessions · 2 times · .* · auth > keeps the cookie/);
    expect(output).not.toContain("logs in");
    expect(output).toMatch(/- 3 sessions · last .* · src\/auth\/session\.ts/);
    expect(output).not.toContain("only-once");

    const three = await kit.call(tool(), { min_recurrence: 3 });
    expect(three.output).toMatch(/· 1 results ·/);
    expect(three.output).toContain("None of the 5 failed tool calls recorded recurs in 3 or more sessions.");
    expect(three.output).toContain(
      "3 corrections in 3 sessions; none recurs in 3 or more sessions in the same words (give a query to group them by topic).",
    );

    const byQuery = await kit.call(tool(), { query: "rename cookie", kinds: ["user_corrections"] });
    expect(byQuery.output).toMatch(/- 3 sessions · 3 times · .* · corrections mentioning rename or cookie/);
    expect(byQuery.output).toContain("revert the rename");
    expect(byQuery.output).not.toContain("## Files changed");
    expect((await kit.call(tool(), { min_recurrence: 11 })).isError).toBe(true);
  });

  it("says plainly when there is no data, and cuts at the budget", async () => {
    const empty = await kit.call(tool(), {});
    expect(empty.output).toContain("No failed tool calls are recorded.");
    expect(empty.output).toContain("No user corrections are recorded.");
    expect(empty.output).toContain("No test_result entries are recorded, so failing tests cannot be counted.");
    expect(empty.output).toContain("No changed file is recorded in 2 or more sessions.");
    expect(empty.output).toMatch(/· 0 results ·/);

    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await session(`S${index}`, "go")).session.id);
    for (let file = 0; file < 60; file += 1) {
      for (const id of ids)
        kit.services.handoffs.recordFileChange(id, {
          path: `src/module-${file}/index.ts`,
          action: "modify",
          linesAdded: 1,
          linesRemoved: 1,
        });
    }
    const cut = await kit.call(tool(300), { kinds: ["files"], max_tokens: 4_000 });
    expect(cut.output).toMatch(/^source: cross-session patterns · (\d+) results · tokens: (\d+) · truncated: true/);
    const [, shown, tokens] = /(\d+) results · tokens: (\d+)/.exec(cut.output) ?? [];
    expect(Number(shown)).toBeLessThan(60);
    expect(Number(tokens)).toBeLessThanOrEqual(300);
    expect(cut.output).toContain("More did not fit");
  });
});

describe("error signatures and test names", () => {
  it("masks ids, paths and numbers", () => {
    expect(errorSignature("\nFile /home/u/p/src/a.ts not found after 3 tries (id 3f2a9c1d)\nstack")).toBe(
      "File <path> not found after <n> tries (id <id>)",
    );
    expect(errorSignature("Cannot read C:\\work\\b.js or index.ts")).toBe("Cannot read <path> or <path>");
  });

  it("reads failing test names from a tester's state, and nothing from other text", () => {
    expect(
      failingTestNames(
        JSON.stringify({
          failing_tests: [{ test_name: "a" }],
          test_results: [
            { test_name: "b", status: "failed" },
            { test_name: "c", status: "pass" },
          ],
        }),
      ),
    ).toEqual(["a", "b"]);
    expect(failingTestNames("3 passed, 1 failed")).toEqual([]);
  });
});
