import * as z from "zod";
import { TEST_STATUSES } from "../../handoff/handoff-state.js";
import type { SubmittedTestResults } from "../../team/stage-state.js";
import { count, note, notes, relativePath, shortId } from "./structured-fields.js";
import type { StageSubmitDeps } from "./submit-plan.js";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

const testName = () => note(300);

const schema = z
  .strictObject({
    tests_created: z
      .array(
        z.strictObject({
          file: relativePath().describe("The test file, relative to the project root."),
          test_name: testName().describe("The test's name as the runner reports it."),
          type: z.enum(["unit", "integration", "e2e"]).describe("unit, integration or e2e."),
          for_task: shortId().optional().describe("The design step or plan task it tests."),
        }),
      )
      .max(200)
      .default([])
      .describe("The tests you wrote."),
    test_results: z
      .array(
        z.strictObject({
          test_name: testName().describe("The test's name as the runner reports it."),
          status: z.enum(TEST_STATUSES).describe("pass, fail or skip."),
          duration: z.string().trim().min(1).max(40).optional().describe('As the runner reports it: "12ms", "1.3s".'),
          error: note().optional().describe("For a failure: the error, as the runner reports it."),
        }),
      )
      .max(500)
      .describe("Every result of the runs you made (the tests you wrote and the existing ones you ran)."),
    failing_tests: z
      .array(
        z.strictObject({
          test_name: testName().describe("The failing test."),
          error: note().describe("The error, as the runner reports it."),
          expected: note().optional().describe("What the test expected."),
          actual: note().optional().describe("What it got."),
          suggestion: note().optional().describe("Where the fault probably is."),
        }),
      )
      .max(200)
      .default([])
      .describe("The failures, described (a failing result not described here is still reported as failing)."),
    coverage_gaps: notes(100).describe("What the change does that no test covers yet."),
  })
  .superRefine((report, context) => {
    const failing = new Set(report.test_results.filter((result) => result.status === "fail").map((result) => result.test_name));
    const reported = new Set(report.test_results.map((result) => result.test_name));
    report.failing_tests.forEach((failure, index) => {
      if (reported.has(failure.test_name) && !failing.has(failure.test_name)) {
        context.addIssue({
          code: "custom",
          message: `"${failure.test_name}" is listed as failing, but its result is not "fail"`,
          path: ["failing_tests", index, "test_name"],
        });
      }
    });
  });

/** `report_test_results`: the tester's report (`TestInfo`, `TestResult`, `FailureDesc`, and coverage gaps). */
export function createReportTestResultsTool(deps: StageSubmitDeps<SubmittedTestResults>): ToolDefinition {
  return defineTool({
    name: "report_test_results",
    description: toolDescription(import.meta.url, "report-test-results.txt"),
    schema,
    // Sylk's own record of the test run: it changes nothing of the user's.
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      await deps.submit(input);
      const statuses = TEST_STATUSES.map(
        (status) => `${input.test_results.filter((result) => result.status === status).length} ${status}`,
      ).join(", ");
      const failing = new Set([
        ...input.failing_tests.map((failure) => failure.test_name),
        ...input.test_results.filter((result) => result.status === "fail").map((result) => result.test_name),
      ]);
      const summary = `${count(input.test_results.length, "result")} (${statuses}), ${count(failing.size, "failing test")}, ${count(input.tests_created.length, "test")} created`;
      return { output: `Test results recorded: ${summary}. End your turn now.`, display: `tests: ${statuses}` };
    },
  });
}
