import * as z from "zod";
import { ISSUE_SEVERITIES } from "../../handoff/handoff-state.js";
import type { SubmittedReview } from "../../team/stage-state.js";
import { checkUnique, count, note, notes, relativePath, shortId } from "./structured-fields.js";
import type { StageSubmitDeps } from "./submit-plan.js";
import { defineTool, toolDescription, type ToolDefinition } from "./tool.js";

const category = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[a-z][a-z0-9_-]*$/, "a category is one lowercase word: security, correctness, performance, style, ...");

const schema = z
  .strictObject({
    checks_performed: notes().describe('What you checked: "read the diff of src/cli/sessions.ts", "traced the error path".'),
    issues: z
      .array(
        z.strictObject({
          id: shortId().describe("A short id, kept for the same issue in a later review: i1, i2, ..."),
          severity: z
            .enum(ISSUE_SEVERITIES)
            .describe("critical (wrong or unsafe; must be fixed), major (should be fixed before this ships) or minor."),
          category: category().describe("security, correctness, performance, error-handling, maintainability, style, ..."),
          file: relativePath().describe("The file, relative to the project root."),
          line: z.number().int().positive().optional().describe("The line (1-based), when the issue has one."),
          description: note().describe("What is wrong, and why it matters."),
          suggestion: note().optional().describe("A concrete fix."),
        }),
      )
      .max(100)
      .describe("Every problem still open, found now or earlier; an empty list when there is none."),
    fixes_applied: z
      .array(
        z.strictObject({
          issue_id: shortId().describe("The id of an issue of an earlier review."),
          description: note().describe("What the fix did, as you checked it."),
          applied: z.boolean().describe("true when the fix is in the code and resolves the issue."),
        }),
      )
      .max(100)
      .default([])
      .describe("In a re-review: for each pending issue you were given, whether its fix was applied."),
    validation_state: z
      .record(category(), z.boolean())
      .describe("Each category you checked: true when it passed, false when it has an issue."),
  })
  .superRefine((review, context) => {
    checkUnique(
      review.issues.map((issue) => issue.id),
      "issue id",
      (index) => ["issues", index, "id"],
      context,
    );
    checkUnique(
      review.fixes_applied.map((fix) => fix.issue_id),
      "fix for issue",
      (index) => ["fixes_applied", index, "issue_id"],
      context,
    );
    const open = new Set(review.issues.map((issue) => issue.id));
    review.fixes_applied.forEach((fix, index) => {
      if (fix.applied && open.has(fix.issue_id)) {
        context.addIssue({
          code: "custom",
          message: `issue "${fix.issue_id}" is both reported open and marked fixed`,
          path: ["fixes_applied", index, "applied"],
        });
      }
    });
    review.issues.forEach((issue, index) => {
      if (review.validation_state[issue.category] === true) {
        context.addIssue({
          code: "custom",
          message: `validation_state marks "${issue.category}" as passed, but issue "${issue.id}" is in that category`,
          path: ["issues", index, "category"],
        });
      }
    });
  });

/** `report_issues`: the inspector's findings (`Issue` and `Fix`, and pass/fail per category). */
export function createReportIssuesTool(deps: StageSubmitDeps<SubmittedReview>): ToolDefinition {
  return defineTool({
    name: "report_issues",
    description: toolDescription(import.meta.url, "report-issues.txt"),
    schema,
    // Sylk's own record of the review: it changes nothing of the user's.
    kind: "read",
    targets: () => ({}),
    async execute(input) {
      await deps.submit(input);
      const bySeverity = ISSUE_SEVERITIES.map(
        (severity) => `${input.issues.filter((issue) => issue.severity === severity).length} ${severity}`,
      ).join(", ");
      const issues = input.issues.length > 0 ? `${count(input.issues.length, "issue")} (${bySeverity})` : "no issues";
      const fixes = input.fixes_applied.length > 0 ? ` and ${count(input.fixes_applied.length, "fix verdict")}` : "";
      return { output: `Review recorded: ${issues}${fixes}. End your turn now.`, display: `review: ${issues}` };
    },
  });
}
