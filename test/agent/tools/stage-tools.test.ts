import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../../../src/agent/permissions/permission-policy.js";
import { createReportIssuesTool } from "../../../src/agent/tools/report-issues.js";
import { createReportTestResultsTool } from "../../../src/agent/tools/report-test-results.js";
import { isRelativePath } from "../../../src/agent/tools/structured-fields.js";
import { createSubmitDesignTool } from "../../../src/agent/tools/submit-design.js";
import { createSubmitPlanTool } from "../../../src/agent/tools/submit-plan.js";
import { ToolRegistry } from "../../../src/agent/tools/tool-registry.js";
import { configDefaults } from "../../../src/config/defaults.js";

const context = { root: "/nowhere", extraDirectories: [], signal: new AbortController().signal };

function kit(mode: "default" | "plan" = "default") {
  const submitted: Array<{ tool: string; input: unknown }> = [];
  const submit = (tool: string) => ({ submit: (input: unknown) => void submitted.push({ tool, input }) });
  const tools = [
    createSubmitPlanTool(submit("submit_plan")),
    createSubmitDesignTool(submit("submit_design")),
    createReportIssuesTool(submit("report_issues")),
    createReportTestResultsTool(submit("report_test_results")),
  ];
  const permissions = { ...configDefaults().permissions, mode };
  const registry = new ToolRegistry(tools, new PermissionPolicy(mode, permissions));
  let id = 0;
  const call = (name: string, input: unknown) => registry.run({ id: String(++id), name, input }, context);
  return { tools, registry, submitted, call };
}

const ISSUE = {
  id: "i1",
  severity: "major",
  category: "correctness",
  file: "src/cli/sessions.ts",
  line: 12,
  description: "The flag is ignored.",
  suggestion: "Read it.",
};

describe("the structured stage tools' schemas", () => {
  const { tools, registry } = kit();
  const specs = registry.specs();

  it("match the snapshot of what the model sees", () => {
    expect(specs).toMatchSnapshot();
  });

  it("are read tools (Sylk's own records) with strict objects, every property described, and a description of substance", () => {
    expect(tools.map((tool) => [tool.name, tool.kind])).toEqual([
      ["submit_plan", "read"],
      ["submit_design", "read"],
      ["report_issues", "read"],
      ["report_test_results", "read"],
    ]);
    const required: Record<string, string[]> = {
      submit_plan: ["summary", "tasks"],
      submit_design: ["summary", "steps"],
      report_issues: ["issues", "validation_state"],
      report_test_results: ["test_results"],
    };
    for (const spec of specs) {
      const schema = spec.inputSchema as {
        additionalProperties: boolean;
        required?: string[];
        properties: Record<string, { description?: string }>;
      };
      expect(schema.additionalProperties, spec.name).toBe(false);
      expect(schema.required, spec.name).toEqual(required[spec.name]);
      for (const [name, property] of Object.entries(schema.properties)) expect(property.description, `${spec.name}.${name}`).toBeTruthy();
      expect(spec.description.length, spec.name).toBeGreaterThan(200);
    }
  });
});

describe("submit_plan", () => {
  it("hands the validated plan to submit, in plan mode too, and confirms briefly", async () => {
    const { call, submitted } = kit("plan");
    const result = await call("submit_plan", {
      summary: "Design, build, review, test.",
      tasks: [
        { id: "t1", description: "Design the flag", assigned_to: "architect" },
        { id: "t2", description: "Implement it", assigned_to: "engineer", dependencies: ["t1"] },
        { id: "t3", description: "Test it", assigned_to: "tester", dependencies: ["t2"] },
      ],
    });
    expect(result.isError).toBeFalsy();
    expect(result).toMatchObject({
      permission: "allowed",
      output: "Plan recorded: 3 tasks (architect 1, engineer 1, tester 1). End your turn now.",
      display: "plan: 3 tasks",
    });
    expect(submitted).toEqual([
      {
        tool: "submit_plan",
        input: {
          summary: "Design, build, review, test.",
          tasks: [
            { id: "t1", description: "Design the flag", assigned_to: "architect" },
            { id: "t2", description: "Implement it", assigned_to: "engineer", dependencies: ["t1"] },
            { id: "t3", description: "Test it", assigned_to: "tester", dependencies: ["t2"] },
          ],
          key_decisions: [],
        },
      },
    ]);
  });

  it.each([
    ["no task", { summary: "s", tasks: [] }, /tasks/],
    ["an unknown agent type", { summary: "s", tasks: [{ id: "t1", description: "d", assigned_to: "wizard" }] }, /assigned_to/],
    [
      "a duplicate id",
      {
        summary: "s",
        tasks: [
          { id: "t1", description: "a", assigned_to: "engineer" },
          { id: "t1", description: "b", assigned_to: "tester" },
        ],
      },
      /task id "t1" is given more than once/,
    ],
    [
      "an unknown dependency",
      { summary: "s", tasks: [{ id: "t1", description: "a", assigned_to: "engineer", dependencies: ["t9"] }] },
      /depends on "t9", which is not a task/,
    ],
    [
      "a task depending on itself",
      { summary: "s", tasks: [{ id: "t1", description: "a", assigned_to: "engineer", dependencies: ["t1"] }] },
      /depends on itself/,
    ],
    [
      "a status (the plan's tasks are all pending)",
      { summary: "s", tasks: [{ id: "t1", description: "a", assigned_to: "engineer", status: "completed" }] },
      /Unrecognized key/,
    ],
  ])("refuses %s with a correction, submitting nothing", async (_case, input, message) => {
    const { call, submitted } = kit();
    const result = await call("submit_plan", input);
    expect(result).toMatchObject({ isError: true, failure: "malformed_input" });
    expect(result.output).toMatch(message);
    expect(result.output).toMatch(/Call submit_plan again/);
    expect(submitted).toEqual([]);
  });
});

describe("submit_design", () => {
  it("hands the ArchitectDesign to submit", async () => {
    const { call, submitted } = kit("plan");
    const design = {
      summary: "Print the rows as JSON.",
      steps: [{ id: "s1", description: "Add the option", files: ["src/cli/sessions.ts"], done_when: "--json parses" }],
      key_decisions: ["Reuse the table's rows"],
      risks: [],
    };
    const result = await call("submit_design", design);
    expect(result.output).toBe("Design recorded: 1 step, 1 decision, 0 risks. End your turn now.");
    expect(submitted).toEqual([{ tool: "submit_design", input: design }]);
  });

  it.each([
    ["an absolute path", "/etc/passwd"],
    ["a path out of the project", "src/../../secret"],
    ["a home path", "~/notes.md"],
    ["a drive path", "C:\\work\\a.ts"],
  ])("refuses %s among a step's files", async (_case, file) => {
    const { call, submitted } = kit();
    const result = await call("submit_design", { summary: "s", steps: [{ id: "s1", description: "d", files: [file], done_when: "w" }] });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/relative to the project root/);
    expect(submitted).toEqual([]);
  });

  it("refuses duplicate step ids", async () => {
    const step = { id: "s1", description: "d", files: [], done_when: "w" };
    const result = await kit().call("submit_design", { summary: "s", steps: [step, step] });
    expect(result.output).toMatch(/step id "s1" is given more than once/);
  });
});

describe("report_issues", () => {
  it("hands the full issues (line, suggestion), fix verdicts and validation_state to submit", async () => {
    const { call, submitted } = kit();
    const minor = { id: "i2", severity: "minor", category: "style", file: "./src/a.ts", description: "Long line." };
    const result = await call("report_issues", {
      checks_performed: ["read the diff"],
      issues: [ISSUE, minor],
      fixes_applied: [{ issue_id: "i0", description: "now escaped", applied: true }],
      validation_state: { correctness: false, style: false, security: true },
    });
    expect(result.output).toBe("Review recorded: 2 issues (0 critical, 1 major, 1 minor) and 1 fix verdict. End your turn now.");
    expect(submitted[0]?.input).toEqual({
      checks_performed: ["read the diff"],
      issues: [ISSUE, minor],
      fixes_applied: [{ issue_id: "i0", description: "now escaped", applied: true }],
      validation_state: { correctness: false, style: false, security: true },
    });
  });

  it("takes a review that found nothing", async () => {
    const { call, submitted } = kit();
    const result = await call("report_issues", { issues: [], validation_state: { correctness: true } });
    expect(result.output).toBe("Review recorded: no issues. End your turn now.");
    expect(submitted[0]?.input).toEqual({ checks_performed: [], issues: [], fixes_applied: [], validation_state: { correctness: true } });
  });

  it.each([
    ["line 0", { ...ISSUE, line: 0 }, /line/],
    ["a negative line", { ...ISSUE, line: -3 }, /line/],
    ["a fractional line", { ...ISSUE, line: 2.5 }, /line/],
    ["a line given as text", { ...ISSUE, line: "12" }, /line/],
    ["an unknown severity", { ...ISSUE, severity: "blocker" }, /severity/],
    ["an absolute file", { ...ISSUE, file: "/work/src/a.ts" }, /relative to the project root/],
    ["a category of two words", { ...ISSUE, category: "Error Handling" }, /one lowercase word/],
    ["no file", { ...ISSUE, file: undefined }, /file/],
  ])("refuses an issue with %s", async (_case, issue, message) => {
    const { call, submitted } = kit();
    const result = await call("report_issues", { issues: [issue], validation_state: {} });
    expect(result).toMatchObject({ isError: true, failure: "malformed_input" });
    expect(result.output).toMatch(message);
    expect(submitted).toEqual([]);
  });

  it("refuses contradictions: a passed category with an issue in it, an issue both open and fixed, an id given twice", async () => {
    const { call } = kit();
    expect((await call("report_issues", { issues: [ISSUE], validation_state: { correctness: true } })).output).toMatch(
      /validation_state marks "correctness" as passed, but issue "i1" is in that category/,
    );
    expect(
      (
        await call("report_issues", {
          issues: [ISSUE],
          fixes_applied: [{ issue_id: "i1", description: "d", applied: true }],
          validation_state: {},
        })
      ).output,
    ).toMatch(/issue "i1" is both reported open and marked fixed/);
    expect((await call("report_issues", { issues: [ISSUE, ISSUE], validation_state: {} })).output).toMatch(
      /issue id "i1" is given more than once/,
    );
  });
});

describe("report_test_results", () => {
  it("hands TestInfo, TestResult and FailureDesc to submit, and counts the failures, described or not", async () => {
    const { call, submitted } = kit();
    const input = {
      tests_created: [{ file: "test/cli/sessions.test.ts", test_name: "prints JSON", type: "unit", for_task: "s2" }],
      test_results: [
        { test_name: "prints JSON", status: "fail", duration: "12ms", error: "Unexpected token" },
        { test_name: "keeps the table", status: "pass" },
        { test_name: "colours", status: "skip" },
        { test_name: "exit code", status: "fail" },
      ],
      failing_tests: [
        { test_name: "prints JSON", error: "Unexpected token", expected: "[]", actual: "Sessions:", suggestion: "the flag is not read" },
      ],
      coverage_gaps: ["the empty list"],
    };
    const result = await call("report_test_results", input);
    expect(result.output).toBe(
      "Test results recorded: 4 results (1 pass, 2 fail, 1 skip), 2 failing tests, 1 test created. End your turn now.",
    );
    expect(submitted[0]?.input).toEqual(input);
  });

  it("refuses a failing test whose result passed, an unknown status or test type, and an absolute test file", async () => {
    const { call, submitted } = kit();
    expect(
      (
        await call("report_test_results", {
          test_results: [{ test_name: "a", status: "pass" }],
          failing_tests: [{ test_name: "a", error: "boom" }],
        })
      ).output,
    ).toMatch(/"a" is listed as failing, but its result is not "fail"/);
    expect((await call("report_test_results", { test_results: [{ test_name: "a", status: "failed" }] })).output).toMatch(/status/);
    expect(
      (await call("report_test_results", { tests_created: [{ file: "t.ts", test_name: "a", type: "smoke" }], test_results: [] })).output,
    ).toMatch(/type/);
    expect(
      (await call("report_test_results", { tests_created: [{ file: "/t.ts", test_name: "a", type: "unit" }], test_results: [] })).output,
    ).toMatch(/relative to the project root/);
    expect(submitted).toEqual([]);
  });
});

describe("isRelativePath", () => {
  it("takes paths inside the project and refuses the rest", () => {
    expect(["src/a.ts", "./src/a.ts", "a..b/c.ts", "README.md", "src\\a.ts"].map(isRelativePath)).toEqual([true, true, true, true, true]);
    expect(["/a", "\\a", "~/a", "C:/a", "..", "a/../../b", "a\\..\\b", "a\0b"].map(isRelativePath)).toEqual(Array(8).fill(false));
  });
});
