import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../../src/agent/permissions/permission-policy.js";
import { SessionRecorder } from "../../../../src/agent/session-recorder.js";
import { recordTestRuns } from "../../../../src/agent/tools/role-tools/record-test-runs.js";
import { storedTestRun } from "../../../../src/agent/tools/role-tools/test-run-summary.js";
import { createRunCommandTool } from "../../../../src/agent/tools/run-command.js";
import { ToolRegistry } from "../../../../src/agent/tools/tool-registry.js";
import { openProject, type ProjectServices } from "../../../../src/app/project-services.js";
import { installFakeVitest } from "../../../helpers/fake-test-runner.js";
import { createTempProject, type TempProject } from "../../../helpers/temp-project.js";
import { unsandboxedCommands } from "../../../helpers/unsandboxed-commands.js";

let project: TempProject;
let services: ProjectServices;
let recorder: SessionRecorder;
let vitestRun: string;

beforeEach(() => {
  project = createTempProject();
  vitestRun = installFakeVitest(project);
  services = openProject({ root: project.root, env: project.env });
  recorder = SessionRecorder.start(
    { sessions: services.sessions, contentStore: services.contentStore, identity: { agentId: "tester-1", agentType: "tester" } },
    { title: "run the tests", provider: "anthropic", model: "claude-fake" },
  );
  recorder.nextTurn();
});
afterEach(async () => {
  await services.close();
  project.cleanup();
});

function registry(record: Parameters<typeof recordTestRuns>[1]["record"]) {
  return new ToolRegistry(recordTestRuns([createRunCommandTool(unsandboxedCommands)], { record }), new PermissionPolicy("bypass"));
}

const run = (tools: ToolRegistry, command: string) =>
  tools.run(
    { id: "toolu_1", name: "run_command", input: { command } },
    { root: project.root, signal: new AbortController().signal, extraDirectories: [] },
  );

describe("recordTestRuns", () => {
  it("records a check command's run as a test_result entry of the session's current turn", async () => {
    const tools = registry((entry) => recorder.recordDerived(entry));
    const result = await run(tools, vitestRun);
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/Tests {2}1 failed \| 11 passed \(12\)\n\nexit code: 1$/);

    const entries = services.contentStore.getByTurnRange(recorder.session.id, 1, 1);
    expect(entries.map((entry) => [entry.contentType, entry.agentId, entry.agentType])).toEqual([["test_result", "tester-1", "tester"]]);
    const testRun = storedTestRun(entries[0]?.metadata);
    expect(testRun).toMatchObject({
      kind: "test",
      command: vitestRun,
      exitCode: 1,
      status: "fail",
      summary: { runner: "vitest", passed: 11, failed: 1, skipped: 0, total: 12, failingTests: ["test/cart.test.ts > cart > adds tax"] },
    });
    expect(testRun?.durationMs).toBeGreaterThanOrEqual(0);
    expect(entries[0]?.content).toMatch(/^test run failed: PATH="\$PWD\/bin:\$PATH" vitest run\nexit 1 · /);
  });

  it("records the exit code alone when the output holds no summary, and nothing for other commands", async () => {
    const tools = registry((entry) => recorder.recordDerived(entry));
    await run(tools, "echo not a check");
    await run(tools, "make --version >/dev/null 2>&1 || true; echo built");
    const entries = services.contentStore.getByTurnRange(recorder.session.id, 1, 1);
    expect(entries).toHaveLength(1);
    expect(storedTestRun(entries[0]?.metadata)).toEqual({
      kind: "build",
      command: "make --version >/dev/null 2>&1 || true; echo built",
      exitCode: 0,
      ending: "exit 0",
      durationMs: expect.any(Number),
      status: "pass",
    });
  });

  it("returns the command's result when recording fails, saying the run was not recorded", async () => {
    const tools = registry(async () => {
      throw new Error("disk quota");
    });
    const result = await run(tools, vitestRun);
    expect(result.output).toMatch(/exit code: 1\n\(Not recorded in the test history: disk quota\)$/);
  });
});
