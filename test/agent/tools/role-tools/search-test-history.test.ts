import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { recordTestRuns } from "../../../../src/agent/tools/role-tools/record-test-runs.js";
import { createSearchTestHistoryTool, testHistoryOf } from "../../../../src/agent/tools/role-tools/search-test-history.js";
import { createRunCommandTool } from "../../../../src/agent/tools/run-command.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../../src/app/project-services.js";
import type { ModelResponse } from "../../../../src/llm/model-types.js";
import { installFakeVitest } from "../../../helpers/fake-test-runner.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";
import { unsandboxedCommands } from "../../../helpers/unsandboxed-commands.js";

let project: TempProject;
let services: ProjectServices;
let available: number;

beforeEach(() => {
  project = createTempProject();
  services = openProject({ root: project.root, env: project.env });
  available = 10_000;
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

const identity = { agentId: "engineer-1", agentType: "engineer" };

function startSession(title: string): SessionRecorder {
  return SessionRecorder.start(
    { sessions: services.sessions, contentStore: services.contentStore, identity },
    { title, provider: "anthropic", model: "claude-fake" },
  );
}

function tools(recorder: SessionRecorder): ToolRegistry {
  return new ToolRegistry(
    [
      ...recordTestRuns([createRunCommandTool(unsandboxedCommands)], { record: (entry) => recorder.recordDerived(entry) }),
      createSearchTestHistoryTool({ history: testHistoryOf(services.entries), availableTokens: () => available }),
    ],
    new PermissionPolicy("bypass"),
  );
}

const context = () => ({ root: project.root, signal: new AbortController().signal, extraDirectories: [] });

/** What an older session holds: a run_command call and its result, with no test_result beside them. */
async function recordOlderRun(command: string, output: string): Promise<void> {
  const recorder = startSession("older session");
  const turn = recorder.nextTurn();
  const promptId = await recorder.recordPrompt("run the tests", turn);
  const call = { type: "tool_use" as const, id: "toolu_old", name: "run_command", input: { command } };
  const response: ModelResponse = {
    content: [call],
    stopReason: "tool_use",
    usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: "claude-fake",
  };
  const { callIds } = await recorder.recordResponse(turn, response, promptId);
  await recorder.recordToolResult(
    turn,
    call,
    { output, isError: output.endsWith("exit code: 0") === false, permission: "allowed" },
    callIds.get("toolu_old") as string,
  );
}

describe("search_test_history", () => {
  it("finds a failing run that run_command recorded through the wrapper", async () => {
    const recorder = startSession("run the tests");
    recorder.nextTurn();
    const registry = tools(recorder);
    const command = installFakeVitest(project);
    project.write("package.json", JSON.stringify({ scripts: { build: "node -e \"console.log('built')\"" } }));
    await registry.run({ id: "toolu_1", name: "run_command", input: { command } }, context());
    await registry.run({ id: "toolu_2", name: "run_command", input: { command: "npm run build" } }, context());

    const failing = await registry.run({ id: "toolu_3", name: "search_test_history", input: { status: "fail" } }, context());
    const lines = failing.output.split("\n");
    expect(lines[0]).toMatch(/^source: test_result entries · 1 results · tokens: \d+ · truncated: false$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^- fail · test · exit 1 · \\d+ (ms|s)[^·]* · \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC · session ${recorder.session.id.slice(0, 8)} turn 1 · entry `,
      ),
    );
    expect(lines.slice(2)).toEqual([
      `  $ ${command}`,
      "  vitest: 1 failed, 11 passed (12)",
      "  failing: test/cart.test.ts > cart > adds tax",
    ]);

    const passing = await registry.run({ id: "toolu_4", name: "search_test_history", input: { status: "pass" } }, context());
    expect(passing.output).toMatch(/· 1 results ·[^\n]*\n- pass · build · exit 0 · /);
    expect(passing.output).toContain("(no test summary recognised in the output: the exit code is all there is)");

    const byName = await registry.run({ id: "toolu_5", name: "search_test_history", input: { query: "CART adds" } }, context());
    expect(byName.output).toContain("· 1 results ·");
    const none = await registry.run(
      { id: "toolu_6", name: "search_test_history", input: { query: "checkout", status: "fail" } },
      context(),
    );
    expect(none.output).toContain('No run matches status fail and query "checkout" among the 2 runs searched');
  });

  it("reads older sessions' check commands from their run_command results, once each", async () => {
    await recordOlderRun(
      "npx jest",
      "FAIL src/a.test.js\n  ● parser › reads arrays\n\nTests:       1 failed, 4 passed, 5 total\n\nexit code: 1",
    );
    await recordOlderRun("ls", "a\nb\n\nexit code: 0");
    const recorder = startSession("newer session");
    recorder.nextTurn();
    const registry = tools(recorder);
    await registry.run({ id: "toolu_1", name: "run_command", input: { command: installFakeVitest(project) } }, context());

    const result = await registry.run({ id: "toolu_2", name: "search_test_history", input: { status: "fail" } }, context());
    expect(result.output).toMatch(/^source: test_result entries and older run_command results · 2 results · /);
    const blocks = result.output.split("\n- ").slice(1);
    expect(blocks[0]).toContain("vitest: 1 failed, 11 passed (12)");
    expect(blocks[0]).not.toContain("read from the run_command output");
    expect(blocks[1]).toMatch(
      /^fail · test · exit 1 · [^\n]* · read from the run_command output\n {2}\$ npx jest\n {2}jest: 1 failed, 4 passed \(5\)\n {2}failing: parser › reads arrays$/,
    );
  });

  it("keeps within its token budget and says what did not fit", async () => {
    const recorder = startSession("many runs");
    recorder.nextTurn();
    const registry = tools(recorder);
    const command = installFakeVitest(project);
    for (let index = 0; index < 6; index += 1)
      await registry.run({ id: `toolu_${index}`, name: "run_command", input: { command } }, context());
    available = 150;
    const result = await registry.run({ id: "toolu_s", name: "search_test_history", input: { max_tokens: 6000 } }, context());
    const header = /^source: test_result entries · (\d+) results · tokens: (\d+) · truncated: true$/.exec(
      result.output.split("\n")[0] ?? "",
    );
    expect(header).not.toBeNull();
    expect(Number(header?.[2])).toBeLessThanOrEqual(150);
    expect(result.output).toMatch(/more matching runs did not fit; ask again with a larger max_tokens, up to 6000/);
  });

  it("says plainly when no run was ever recorded", async () => {
    const registry = tools(startSession("empty"));
    const result = await registry.run({ id: "toolu_1", name: "search_test_history", input: {} }, context());
    expect(result.output).toBe(
      "source: test_result entries · 0 results · tokens: 0 · truncated: false\n" +
        "No test, build, type-check or lint run is recorded in this project. Runs are recorded when run_command runs such a command.",
    );
  });
});
